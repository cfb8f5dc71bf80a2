"""Retrievers: one class per search type, dispatched through one hand-written table."""

from __future__ import annotations

from recall_engine.core.search_types import SearchType
from retrievers.base import (
    LLM,
    Identity,
    RetrievalContext,
    Retriever,
    RetrieverConfig,
    RetrieverOutput,
    SessionView,
)
from retrievers.chunks import ChunksRetriever
from retrievers.chunks_lexical import LexicalChunksRetriever
from retrievers.graph_completion import GraphCompletionRetriever
from retrievers.hybrid_completion import HybridCompletionRetriever
from retrievers.rag_completion import RagCompletionRetriever

RETRIEVERS: dict[SearchType, type[Retriever]] = {
    SearchType.CHUNKS: ChunksRetriever,
    SearchType.CHUNKS_LEXICAL: LexicalChunksRetriever,
    SearchType.RAG_COMPLETION: RagCompletionRetriever,
    SearchType.HYBRID_COMPLETION: HybridCompletionRetriever,
    SearchType.GRAPH_COMPLETION: GraphCompletionRetriever,
}

__all__ = [
    "LLM",
    "RETRIEVERS",
    "Identity",
    "RetrievalContext",
    "Retriever",
    "RetrieverConfig",
    "RetrieverOutput",
    "SessionView",
]
