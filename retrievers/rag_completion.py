"""RAG_COMPLETION: the CHUNKS context, answered by the engine's completion step."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput
from retrievers.chunks import ChunksConfig, ChunksRetriever


class RagCompletionRetriever:
    """Dense chunk retrieval whose items become the context of a generated answer."""

    search_type: ClassVar[SearchType] = SearchType.RAG_COMPLETION
    kind: ClassVar[str] = "rag_completion"
    produces_answer: ClassVar[bool] = True
    config_model: ClassVar[type[RetrieverConfig]] = ChunksConfig

    async def retrieve(self, query: str, ctx: RetrievalContext) -> RetrieverOutput:
        return await ChunksRetriever().retrieve(query, ctx)
