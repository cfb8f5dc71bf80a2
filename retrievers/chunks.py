"""CHUNKS: dense retrieval over chunk embeddings (exact cosine similarity)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth


class ChunksConfig(RetrieverConfig):
    """Options of CHUNKS (``retriever_specific_config``)."""

    min_score: float = Field(default=-1.0, ge=-1.0, le=1.0, description="Drop chunks below this.")


class ChunksRetriever:
    """The chunks whose embeddings are closest to the query's."""

    search_type: ClassVar[str] = SearchType.CHUNKS
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = ChunksConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[ChunksConfig]) -> RetrieverOutput:
        """Rank chunks by dense similarity to the query.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` chunk hits, best first, each chunk scored by the mean of
            its own and its best sentence's similarity.
        """
        options = config_of(ctx, ChunksConfig)
        found = await ctx.read.dense_chunks(ctx.query_vector, read_depth(ctx.top_k))
        hits = found[: ctx.top_k]
        return RetrieverOutput(
            hits=[h for h in hits if h.score >= options.min_score], details={"scoring": "cosine"}
        )
