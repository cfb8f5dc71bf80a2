"""CHUNKS_LEXICAL: BM25 keyword retrieval over the same chunks."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth


class LexicalConfig(RetrieverConfig):
    """Options of CHUNKS_LEXICAL (``retriever_specific_config``)."""

    pass


class LexicalChunksRetriever:
    """Chunks ranked by BM25 (Lucene variant, k1=1.5, b=0.75) over stemmed words."""

    search_type: ClassVar[str] = SearchType.CHUNKS_LEXICAL
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = LexicalConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[LexicalConfig]) -> RetrieverOutput:
        """Rank chunks by BM25 over the query's words.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` chunk hits, best first; none when no word matches.
        """
        config_of(ctx, LexicalConfig)
        found = await ctx.read.lexical_chunks(query, read_depth(ctx.top_k))
        hits = found[: ctx.top_k]
        return RetrieverOutput(hits=list(hits), details={"scoring": "bm25"})
