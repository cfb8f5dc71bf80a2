"""TRIPLET_COMPLETION: vector search over relation texts (indexed at ingest) + answer.

When the scope holds no relation at all (nothing was extracted), the nearest
passages stand in and ``details["fallback"]`` says so.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from pydantic import Field

from recall_engine.core.hits import TripletHit
from recall_engine.core.search_types import SearchType
from recall_engine.read.api import ReadAPI
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth


class TripletCompletionConfig(RetrieverConfig):
    """Options of TRIPLET_COMPLETION (``retriever_specific_config``)."""

    depth: int = Field(
        default=30,
        ge=1,
        le=1000,
        description="Nearest relations read first; read twice as deep while duplicates "
        "leave fewer than top_k distinct triplets (not a share of top_k: see retrievers.layout).",
    )


async def distinct_triplets(
    read: ReadAPI, vector: np.ndarray, k: int, depth: int
) -> list[TripletHit]:
    """The ``k`` nearest triplets, one per (source, predicate, target).

    The nearest ``depth`` relations deduplicated, read deeper only while they give
    fewer than ``k`` and the store has more (exact search: a deeper read starts the
    same way).
    """
    while True:
        found = await read.nearest_triplets(vector, depth)
        hits: list[TripletHit] = []
        seen: set[tuple[str, str, str]] = set()
        for hit in found:  # the nearest of each key
            if hit.key not in seen:
                seen.add(hit.key)
                hits.append(hit)
        if len(hits) >= k or len(found) < depth:
            return hits[:k]
        depth *= 2


class TripletCompletionRetriever:
    """The relations whose text (``source predicate target: context``) is nearest."""

    search_type: ClassVar[str] = SearchType.TRIPLET_COMPLETION
    kind: ClassVar[str] = "triplet_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = TripletCompletionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[TripletCompletionConfig]
    ) -> RetrieverOutput:
        """Gather the relation texts nearest the query, as an answer's context.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` triplet hits, one per (source, predicate, target); the
            nearest passages instead when the scope holds no relation (``details["fallback"]``).
        """
        options = config_of(ctx, TripletCompletionConfig)
        hits = await distinct_triplets(ctx.read, ctx.query_vector, ctx.top_k, options.depth)
        if not hits:  # no relation in scope: say so, and give the nearest passages
            passages = await ctx.read.dense_chunks(ctx.query_vector, read_depth(ctx.top_k))
            return RetrieverOutput(
                hits=list(passages[: ctx.top_k]),
                details={"scoring": "cosine", "fallback": "no relations in scope: passages"},
            )
        context = "Connections:\n" + "\n".join(f"- {h.text}" for h in hits)
        return RetrieverOutput(hits=list(hits), context=context, details={"scoring": "cosine"})
