"""Retrievers: one class per search type, dispatched through one hand-written table."""

from __future__ import annotations

from recall_engine.core.search_types import SearchType
from retrievers.agentic_completion import AgenticCompletionRetriever
from retrievers.base import (
    LLM,
    Identity,
    RetrievalContext,
    Retriever,
    RetrieverConfig,
    RetrieverOutput,
    SessionView,
)
from retrievers.broad import BroadRetriever
from retrievers.chunks import ChunksRetriever
from retrievers.chunks_lexical import LexicalChunksRetriever
from retrievers.coding_rules import CodingRulesRetriever
from retrievers.cypher import CypherRetriever
from retrievers.feeling_lucky import FeelingLuckyRetriever
from retrievers.graph_completion import GraphCompletionRetriever
from retrievers.graph_completion_context_extension import GraphCompletionContextExtensionRetriever
from retrievers.graph_completion_cot import GraphCompletionCotRetriever
from retrievers.graph_completion_decomposition import GraphCompletionDecompositionRetriever
from retrievers.graph_report import GraphReportRetriever
from retrievers.graph_summary_completion import GraphSummaryCompletionRetriever
from retrievers.hybrid_completion import HybridCompletionRetriever
from retrievers.natural_language import NaturalLanguageRetriever
from retrievers.rag_completion import RagCompletionRetriever
from retrievers.summaries import SummariesRetriever
from retrievers.temporal import TemporalRetriever
from retrievers.triplet_completion import TripletCompletionRetriever

RETRIEVERS: dict[SearchType, type[Retriever]] = {
    SearchType.CHUNKS: ChunksRetriever,
    SearchType.CHUNKS_LEXICAL: LexicalChunksRetriever,
    SearchType.RAG_COMPLETION: RagCompletionRetriever,
    SearchType.CYPHER: CypherRetriever,
    SearchType.NATURAL_LANGUAGE: NaturalLanguageRetriever,
    SearchType.FEELING_LUCKY: FeelingLuckyRetriever,
    SearchType.CODING_RULES: CodingRulesRetriever,
    SearchType.HYBRID_COMPLETION: HybridCompletionRetriever,
    SearchType.GRAPH_COMPLETION: GraphCompletionRetriever,
    SearchType.GRAPH_COMPLETION_COT: GraphCompletionCotRetriever,
    SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION: GraphCompletionContextExtensionRetriever,
    SearchType.GRAPH_SUMMARY_COMPLETION: GraphSummaryCompletionRetriever,
    SearchType.GRAPH_COMPLETION_DECOMPOSITION: GraphCompletionDecompositionRetriever,
    SearchType.TRIPLET_COMPLETION: TripletCompletionRetriever,
    SearchType.SUMMARIES: SummariesRetriever,
    SearchType.TEMPORAL: TemporalRetriever,
    SearchType.AGENTIC_COMPLETION: AgenticCompletionRetriever,
    SearchType.BROAD: BroadRetriever,
    SearchType.GRAPH_REPORT: GraphReportRetriever,
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
