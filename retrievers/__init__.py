"""Retrievers: one class per search type. The built-ins are listed in one table
(``RETRIEVERS``); ``REGISTRY`` holds them plus the types users register
(``register_retriever``, or the ``recall_engine.retrievers`` entry-point group), and
everything that runs a search type looks it up there."""

from __future__ import annotations

from recall_engine.core.search_types import SearchType, SearchTypeName
from retrievers.agentic_completion import AgenticCompletionRetriever
from retrievers.base import (
    LLM,
    Identity,
    RetrievalContext,
    Retriever,
    RetrieverClass,
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
from retrievers.registry import ENTRY_POINT_GROUP, RetrieverRegistry
from retrievers.summaries import SummariesRetriever
from retrievers.temporal import TemporalRetriever
from retrievers.triplet_completion import TripletCompletionRetriever

RETRIEVERS: dict[SearchType, RetrieverClass] = {
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
"""The built-in search types (a golden test lists them); never changed at run time."""

REGISTRY = RetrieverRegistry(RETRIEVERS)
"""Every search type that can run now: ``RETRIEVERS``, then registered ones."""


def register_retriever(
    name: str, retriever: RetrieverClass, *, replace: bool = False
) -> SearchTypeName:
    """Add a search type: ``recall(query_type=name)``, router rules, the server and
    MCP accept ``name`` from now on, in every engine of this process.

    Args:
        name: upper-case letters, digits and underscores (``KEYWORDS``), not a built-in.
        retriever: a class implementing ``retrievers.base.Retriever`` whose
            ``search_type`` is ``name``.
        replace: allow replacing another class registered as ``name``.

    Returns:
        ``name``.

    Raises:
        InvalidInputError: a badly formed, built-in or (without ``replace``) taken name.
        TypeError: ``retriever`` lacks what the ``Retriever`` Protocol declares.
    """
    return REGISTRY.register(name, retriever, replace=replace)


def unregister_retriever(name: str) -> None:
    """Remove a registered search type (``recall`` then refuses ``name``).

    Raises:
        InvalidInputError: ``name`` is a built-in.
    """
    REGISTRY.unregister(name)


def load_entry_points() -> tuple[SearchTypeName, ...]:
    """Register the retrievers of installed packages' ``recall_engine.retrievers``
    entry points (once per process; ``RecallEngine`` calls it).

    Returns:
        The names this call registered.

    Raises:
        ConfigError: an entry point that cannot be loaded or is no retriever class.
    """
    return REGISTRY.load_entry_points()


__all__ = [
    "ENTRY_POINT_GROUP",
    "LLM",
    "REGISTRY",
    "RETRIEVERS",
    "Identity",
    "RetrievalContext",
    "Retriever",
    "RetrieverConfig",
    "RetrieverOutput",
    "SessionView",
    "load_entry_points",
    "register_retriever",
    "unregister_retriever",
]
