"""RAG_COMPLETION: the CHUNKS context, answered by the pipeline's answer stage."""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput
from retrievers.chunks import ChunksConfig, ChunksRetriever


class RagCompletionRetriever:
    """Dense chunk retrieval whose hits become the context of a generated answer."""

    search_type: ClassVar[str] = SearchType.RAG_COMPLETION
    kind: ClassVar[str] = "rag_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = ChunksConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[ChunksConfig]) -> RetrieverOutput:
        """Gather the context of an answer: the chunks nearest the query.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` chunk hits, best first; the pipeline answers from them.
        """
        return await ChunksRetriever().retrieve(query, ctx)
