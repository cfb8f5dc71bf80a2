"""The route stage: the search type a recall runs, and the gate on Cypher types."""

from __future__ import annotations

import router
from recall_engine.config import RecallConfig
from recall_engine.core.errors import UnsupportedSearchTypeError
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES, SearchType
from router import RouteDecision, Router

HANDOVER: dict[SearchType, tuple[dict[str, object], str]] = {
    SearchType.GRAPH_COMPLETION: (
        {"follow_up_hops": 1},
        "routed to GRAPH_COMPLETION: one follow-up hop (the question + its best evidence)",
    ),
}
"""What a routed search runs with (the router chose; no ``query_type``):
GRAPH_COMPLETION, the default, plus one follow-up search for the question and its
best evidence, merged by rank (the second hop of offline chain-of-thought). An
explicit ``query_type`` runs one search.

LoCoMo dev, routed, recall@10 cat 1-4 / cat-1 r@10 / full@10 / cat 5: one search
77.3 / 45.8 / 21.8 / 83.1; one hop 77.7 / 47.0 / 23.2 / 85.2; two hops 76.9 / 46.4 /
21.1 / 85.7. HotpotQA-100 routed R@5 / full@5: 93.0 / 87.0; one hop 94.5 / 90.0; two
94.5 / 90.0. The hop costs a second query embedding and graph search. With the
speaker boost in place of the flat name bonus (``retrievers.graph_search``), one hop:
LoCoMo 78.3 / 48.9 / 23.2 / 84.4 (without any mention bonus 78.5 / 49.6 / 23.9 /
84.4); HotpotQA 95.0 / 91.0. With the question demotion (``retrievers.graph_search``)
79.1 / 50.9 / 26.1 / 86.9. Tried in the hop and dropped (the same columns): the words
two of the best three passages share added to the hop's query 78.9 / 50.3 / 26.1 /
85.7; the names of the entities two of them mention (so their links seed the walk)
79.0 / 50.5 / 25.4 / 87.1; the hop's speaker boost x2 79.1 / 51.4 / 26.8 / 86.5 (one
question); merged ranks 4-25 reordered greedily by query words not covered above 79.0 /
50.3 / 25.4 / 87.3 (cat 3 46.2 -> 43.9). Without the demotion (cat-1 r@10 / full@10 /
cat 5): hop weight 0.5 48.0 / 21.8 / 84.6, 1.0 49.2 / 23.2 / 83.8 (0.7 kept); feedback
words of three passages 49.6 / 23.9 / 82.5, five 47.8 / 21.8 / 82.5, instead of the
evidence 48.9 / 24.6 / 82.3. HotpotQA routed 95.0 / 91.0 for each of them. With sentence
vectors (``storage.sentence_index``) 79.8 / 54.2 / 31.0 / 85.0, HotpotQA 94.5 / 90.0. Merged
by rank with HYBRID_COMPLETION's list as a later round (sentence vectors without the sentences
that ask; routed then 79.5 / 55.3 / 32.4 / 81.9): weight 0.5 79.7 / 54.8 / 32.4 / 83.1, 0.7
79.3 / 53.7 / 31.7 / 84.6, 1.0 78.9 / 53.4 / 31.0 / 86.1, each trading category 1 for 5.

Each group of the routed default against the other retrievers on the same questions
(LoCoMo dev cat 1-4, recall@10, 2026-12-05, before the replies of
``retrievers.graph_turns``): routed to TEMPORAL (276) 86.6, against GRAPH_COMPLETION
83.2, with the hop 84.2, COT 84.2, HYBRID 80.6; to GRAPH_COMPLETION with the hop (458)
76.0, against one search 75.6, TEMPORAL 75.6, COT 74.8, HYBRID 71.6; to COT (24) 82.6,
against 78.5 for each of the others; to CONTEXT_EXTENSION (2) 0.0, against 25.0. Each
large group gets its best retriever. With the replies, routed 80.8 / 56.2 / 31.7 / 88.8."""


def check_search_type_allowed(search_type: SearchType, config: RecallConfig | None) -> None:
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
    query_type: SearchType | None,
    *,
    auto_route: bool,
    config: RecallConfig,
    rules: Router,
) -> tuple[SearchType, RouteDecision | None]:
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
    search_type: SearchType, query_type: SearchType | None, decision: RouteDecision | None
) -> dict[str, object] | None:
    """The options a routed search adds (``HANDOVER``), or None when the caller
    chose the type (``query_type``) or the router did not run."""
    if query_type is not None or decision is None or search_type not in HANDOVER:
        return None
    return dict(HANDOVER[search_type][0])


def handover_reason(search_type: SearchType) -> str:
    """Why a routed search runs with ``HANDOVER``'s options (metadata["route"])."""
    return HANDOVER[search_type][1]


def routed_handover(decision: RouteDecision | None) -> dict[str, object] | None:
    """What the router's own pick runs with when a retriever delegates to it
    (FEELING_LUCKY offline runs the routed type as the routed default does)."""
    if decision is None:
        return None
    return handover(decision.search_type, None, decision)
