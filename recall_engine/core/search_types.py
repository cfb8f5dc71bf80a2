"""The search types recall() understands (the names Cognee's docs define)."""

from __future__ import annotations

from enum import StrEnum


class SearchType(StrEnum):
    """How recall() retrieves: one value per retriever."""

    SUMMARIES = "SUMMARIES"
    CHUNKS = "CHUNKS"
    RAG_COMPLETION = "RAG_COMPLETION"
    TRIPLET_COMPLETION = "TRIPLET_COMPLETION"
    GRAPH_COMPLETION = "GRAPH_COMPLETION"
    GRAPH_SUMMARY_COMPLETION = "GRAPH_SUMMARY_COMPLETION"
    CYPHER = "CYPHER"
    NATURAL_LANGUAGE = "NATURAL_LANGUAGE"
    GRAPH_COMPLETION_COT = "GRAPH_COMPLETION_COT"
    GRAPH_COMPLETION_CONTEXT_EXTENSION = "GRAPH_COMPLETION_CONTEXT_EXTENSION"
    GRAPH_COMPLETION_DECOMPOSITION = "GRAPH_COMPLETION_DECOMPOSITION"
    FEELING_LUCKY = "FEELING_LUCKY"
    TEMPORAL = "TEMPORAL"
    CODING_RULES = "CODING_RULES"
    CHUNKS_LEXICAL = "CHUNKS_LEXICAL"
    HYBRID_COMPLETION = "HYBRID_COMPLETION"
    AGENTIC_COMPLETION = "AGENTIC_COMPLETION"
    BROAD = "BROAD"
    GRAPH_REPORT = "GRAPH_REPORT"


# Search types that query Cypher and so obey ALLOW_CYPHER_QUERY.
CYPHER_SEARCH_TYPES = frozenset({SearchType.CYPHER, SearchType.NATURAL_LANGUAGE})


def parse_search_type(value: SearchType | str) -> SearchType:
    """Accept a SearchType or its name (any case); raise ValueError naming the choices."""
    if isinstance(value, SearchType):
        return value
    if isinstance(value, str):
        try:
            return SearchType(value.strip().upper())
        except ValueError:
            pass
    choices = ", ".join(t.value for t in SearchType)
    raise ValueError(f"Unknown search type {value!r}. Use one of: {choices}.")
