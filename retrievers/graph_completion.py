"""GRAPH_COMPLETION: graph-aware context (triplets and the passages they rest on) + answer.

The router's default target. The search itself is ``retrievers.graph_search``;
this class runs it once for the query and lays the context out as a Nodes
block, a Connections block (``A --[predicate]--> B (context)``) and the
passages, best first.
"""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_search import GraphResult, GraphSearchConfig, graph_search, render_context


class GraphCompletionConfig(GraphSearchConfig):
    """GRAPH_COMPLETION options (see ``GraphSearchConfig``)."""


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


class GraphCompletionRetriever:
    """Triplets and passages ranked by vector distance, BM25 and graph structure."""

    search_type: ClassVar[SearchType] = SearchType.GRAPH_COMPLETION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphCompletionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphCompletionConfig]
    ) -> RetrieverOutput:
        options = config_of(ctx, GraphCompletionConfig)
        result = await graph_search(
            query, ctx.query_vector, ctx.read, options, top_k=ctx.top_k, timings=ctx.timings
        )
        return graph_output(result)
