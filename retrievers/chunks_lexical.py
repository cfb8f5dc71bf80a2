"""CHUNKS_LEXICAL: BM25 keyword retrieval over the same chunks."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from recall_engine.storage.lexical import tokenize
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput
from retrievers.chunks import chunk_item


class LexicalConfig(RetrieverConfig):
    pass


class LexicalChunksRetriever:
    """Chunks ranked by BM25 (Lucene variant, k1=1.5, b=0.75) over stemmed words."""

    search_type: ClassVar[SearchType] = SearchType.CHUNKS_LEXICAL
    kind: ClassVar[str] = "chunk"
    produces_answer: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = LexicalConfig

    async def retrieve(self, query: str, ctx: RetrievalContext) -> RetrieverOutput:
        tokens = tokenize(query)
        hits = ctx.store.index.search_lexical(tokens, ctx.top_k, ctx.dataset_ids)
        items = [chunk_item(record, score, kind="chunk") for record, score in hits]
        return RetrieverOutput(items=items, details={"scoring": "bm25", "query_tokens": tokens})
