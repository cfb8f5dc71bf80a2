"""SUMMARIES: vector search over the per-data-item summaries written at ingest."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth


class SummariesConfig(RetrieverConfig):
    """SUMMARIES has no options yet."""


class SummariesRetriever:
    """The summaries nearest to the query (each cites its data item's chunks)."""

    search_type: ClassVar[str] = SearchType.SUMMARIES
    kind: ClassVar[str] = "summary"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = SummariesConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[SummariesConfig]) -> RetrieverOutput:
        """Rank the per-item summaries by similarity to the query.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` summary hits, best first.
        """
        config_of(ctx, SummariesConfig)
        found = await ctx.read.nearest_summaries(ctx.query_vector, read_depth(ctx.top_k))
        hits = found[: ctx.top_k]
        return RetrieverOutput(hits=list(hits), details={"scoring": "cosine"})
