"""The route stage: explicit and routed Cypher types meet the same gate."""

from __future__ import annotations

import pytest

from recall_engine.config import RecallConfig
from recall_engine.core.errors import UnsupportedSearchTypeError
from recall_engine.core.search_types import SearchType
from recall_engine.pipeline.route import check_search_type_allowed, choose_search_type
from router import default_router

NO_CYPHER = RecallConfig(allow_cypher_query=False)


def _choose(query: str, config: RecallConfig, query_type: SearchType | None = None) -> SearchType:
    chosen, _ = choose_search_type(
        query, query_type, auto_route=True, config=config, rules=default_router()
    )
    return chosen


def test_routed_cypher_is_refused_when_cypher_is_disabled() -> None:
    with pytest.raises(
        UnsupportedSearchTypeError, match=r"^Cypher query search types are disabled\.$"
    ):
        _choose("MATCH (n) RETURN n", NO_CYPHER)
    assert _choose("MATCH (n) RETURN n", RecallConfig()) is SearchType.CYPHER
    assert _choose("Why?", NO_CYPHER) is SearchType.GRAPH_COMPLETION_COT


def test_auto_route_off_pins_graph_completion() -> None:
    chosen, decision = choose_search_type(
        "MATCH (n) RETURN n", None, auto_route=False, config=RecallConfig(), rules=default_router()
    )
    assert chosen is SearchType.GRAPH_COMPLETION
    assert decision is None


@pytest.mark.parametrize("search_type", [SearchType.CYPHER, SearchType.NATURAL_LANGUAGE])
def test_explicit_cypher_types_are_checked(search_type: SearchType) -> None:
    with pytest.raises(UnsupportedSearchTypeError, match="Cypher query search types are disabled"):
        check_search_type_allowed(search_type, NO_CYPHER)
    with pytest.raises(UnsupportedSearchTypeError):
        _choose("what is this", NO_CYPHER, query_type=search_type)
    check_search_type_allowed(search_type, None)
    check_search_type_allowed(search_type, RecallConfig())
    check_search_type_allowed(SearchType.CHUNKS, NO_CYPHER)
