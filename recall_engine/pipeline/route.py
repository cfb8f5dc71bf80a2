"""The route stage: the search type a recall runs, and the gate on Cypher types."""

from __future__ import annotations

import router
from recall_engine.config import RecallConfig
from recall_engine.core.errors import UnsupportedSearchTypeError
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES, SearchType, SearchTypeName
from retrievers.graph_completion import ROUTED_HOP
from retrievers.graph_completion_cot import ROUTED_COT
from router import RouteDecision, Router

HANDOVER: dict[SearchTypeName, tuple[dict[str, object], str]] = {
    SearchType.GRAPH_COMPLETION: (
        ROUTED_HOP,
        "routed to GRAPH_COMPLETION: one follow-up hop (the question + its best evidence) "
        "when the first round leaves part of the question uncovered",
    ),
    SearchType.GRAPH_COMPLETION_COT: (
        ROUTED_COT,
        "routed to GRAPH_COMPLETION_COT: two rounds (the question, then the question + "
        "its best evidence or, with an LLM, its follow-up question)",
    ),
}
"""What a routed search runs with (the router chose; no ``query_type``):
GRAPH_COMPLETION, the default, plus one follow-up search for the question and its
best evidence, merged by rank (the second hop of offline chain-of-thought), run
only when the first round's best passage holds under 70% of the question's content
words, the question does not ask for a list, and the first round does not already
hold every page the best passage names by title (``retrievers.hop_gate``); and
GRAPH_COMPLETION_COT with two rounds, not four. An explicit ``query_type`` runs one
search (GRAPH_COMPLETION) or every round (GRAPH_COMPLETION_COT).

The hop costs a second query embedding and graph search; what it adds, the gate,
and the variants tried, are recorded in ``docs/decisions.md``."""


def check_search_type_allowed(search_type: SearchTypeName, config: RecallConfig | None) -> None:
    """Refuse a Cypher search type when ``config`` disables Cypher queries.

    The gate sits in the recall path, not in the router, so a routed and an
    explicit Cypher query meet the same check.

    Raises:
        UnsupportedSearchTypeError: ``search_type`` is CYPHER or NATURAL_LANGUAGE
            and ``config.allow_cypher_query`` is false.
    """
    if config is not None and not config.allow_cypher_query and search_type in CYPHER_SEARCH_TYPES:
        # Cognee's exact message, which callers match on.
        raise UnsupportedSearchTypeError("Cypher query search types are disabled.")


def choose_search_type(
    query_text: str,
    query_type: SearchTypeName | None,
    *,
    auto_route: bool,
    config: RecallConfig,
    rules: Router,
) -> tuple[SearchTypeName, RouteDecision | None]:
    """The search type to run and the router's decision (None when the router did not run).

    An explicit ``query_type`` wins; the router still runs (when ``auto_route``)
    so the override is logged. ``auto_route=False`` without a type pins
    GRAPH_COMPLETION.
    """
    decision = rules.route(query_text) if auto_route else None
    if query_type is not None:
        chosen = query_type
        if decision is not None:
            router.log_override(decision, chosen)
    elif decision is not None:
        chosen = decision.search_type
    else:
        chosen = SearchType.GRAPH_COMPLETION
    check_search_type_allowed(chosen, config)
    return chosen, decision


def handover(
    search_type: SearchTypeName, query_type: SearchTypeName | None, decision: RouteDecision | None
) -> dict[str, object] | None:
    """The options a routed search adds (``HANDOVER``), or None when the caller
    chose the type (``query_type``) or the router did not run."""
    if query_type is not None or decision is None or search_type not in HANDOVER:
        return None
    return dict(HANDOVER[search_type][0])


def handover_reason(search_type: SearchTypeName) -> str:
    """Why a routed search runs with ``HANDOVER``'s options (metadata["route"])."""
    return HANDOVER[search_type][1]


def routed_handover(decision: RouteDecision | None) -> dict[str, object] | None:
    """What the router's own pick runs with when a retriever delegates to it
    (FEELING_LUCKY offline runs the routed type as the routed default does)."""
    if decision is None:
        return None
    return handover(decision.search_type, None, decision)
