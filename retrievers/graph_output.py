"""A graph search as a retriever output (every graph-completion variant's last step)."""

from __future__ import annotations

from retrievers.base import RetrieverOutput
from retrievers.graph_search import GraphResult, render_context


def graph_output(result: GraphResult, **details: object) -> RetrieverOutput:
    """A graph search as a retriever output: hits, laid-out context, per-edge distances."""
    return RetrieverOutput(
        hits=list(result.hits),
        context=render_context(result) if result.hits else None,
        details={
            **result.details,
            "triplets": [
                {"id": t.id, "key": list(t.key), "distance": result.distances.get(t.id)}
                for t in result.triplets
            ],
            **details,
        },
    )
