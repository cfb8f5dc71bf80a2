"""TRIPLET_COMPLETION: vector search over relation texts (indexed at ingest) + answer.

When the scope holds no relation at all (nothing was extracted), the nearest
passages stand in and ``details["fallback"]`` says so.
"""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of


class TripletCompletionConfig(RetrieverConfig):
    """TRIPLET_COMPLETION has no options yet."""


class TripletCompletionRetriever:
    """The relations whose text (``source predicate target: context``) is nearest."""

    search_type: ClassVar[SearchType] = SearchType.TRIPLET_COMPLETION
    kind: ClassVar[str] = "triplet_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = TripletCompletionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[TripletCompletionConfig]
    ) -> RetrieverOutput:
        config_of(ctx, TripletCompletionConfig)
        found = await ctx.read.nearest_triplets(ctx.query_vector, ctx.top_k * 2)
        hits, seen = [], set()
        for hit in found:  # one per (source, predicate, target), the nearest
            if hit.key not in seen:
                seen.add(hit.key)
                hits.append(hit)
        hits = hits[: ctx.top_k]
        if not hits:  # no relation in scope: say so, and give the nearest passages
            passages = await ctx.read.dense_chunks(ctx.query_vector, ctx.top_k)
            return RetrieverOutput(
                hits=list(passages),
                details={"scoring": "cosine", "fallback": "no relations in scope: passages"},
            )
        context = "Connections:\n" + "\n".join(f"- {h.text}" for h in hits)
        return RetrieverOutput(hits=list(hits), context=context, details={"scoring": "cosine"})
