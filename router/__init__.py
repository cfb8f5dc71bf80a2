"""Rule-based query router: picks a search type from the wording of a query.

    from router import route
    decision = route("Why did the migration fail?")
    decision.search_type          # SearchType.GRAPH_COMPLETION_COT
    decision.fired                # ['cot.cue']

Rules are data (``DEFAULT_RULES``, from ``default_rules.toml``); build a
``Router`` over your own with ``load_rules(path, base=DEFAULT_RULES)``.
"""

from router.rules import DEFAULT_RULES, Rule, load_rules, merge_rules, parse_rules, save_rules
from router.scorer import (
    RouteDecision,
    Router,
    default_router,
    log_override,
    route,
)

__all__ = [
    "DEFAULT_RULES",
    "RouteDecision",
    "Router",
    "Rule",
    "default_router",
    "load_rules",
    "log_override",
    "merge_rules",
    "parse_rules",
    "route",
    "save_rules",
]
