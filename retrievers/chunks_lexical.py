"""CHUNKS_LEXICAL: BM25 keyword retrieval over the same chunks."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth


class LexicalConfig(RetrieverConfig):
    pass


class LexicalChunksRetriever:
    """Chunks ranked by BM25 (Lucene variant, k1=1.5, b=0.75) over stemmed words."""

    search_type: ClassVar[SearchType] = SearchType.CHUNKS_LEXICAL
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = LexicalConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[LexicalConfig]) -> RetrieverOutput:
        config_of(ctx, LexicalConfig)
        found = await ctx.read.lexical_chunks(query, read_depth(ctx.top_k))
        hits = found[: ctx.top_k]
        return RetrieverOutput(hits=list(hits), details={"scoring": "bm25"})
