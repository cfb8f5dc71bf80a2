"""Public import path of ``recall_engine.core.search_types`` (kept for callers)."""

from recall_engine.core.search_types import (
    CYPHER_SEARCH_TYPES,
    SearchType,
    parse_search_type,
)

__all__ = [
    "CYPHER_SEARCH_TYPES",
    "SearchType",
    "parse_search_type",
]
