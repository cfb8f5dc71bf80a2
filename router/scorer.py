"""Score a query against the rule table and explain the choice.

The scorer only sums the weights of rules that fire (each at most once), skips
negated matches, applies the threshold, breaks ties by table order and falls
back to the default search type. Everything else is in the rules.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.search_types import (
    SearchType,
    SearchTypeField,
    SearchTypeName,
    parse_search_type,
)
from router.matcher import RULE_TIMEOUT_S, CompiledRule
from router.rules import DEFAULT_RULES, Rule, check_rule_speed

# Messages do not start with "query_router:": a handler's format names the logger
# (%(name)s), and a prefix of their own printed it twice.
logger = logging.getLogger("query_router")

THRESHOLD = 2.0
NEGATION_WINDOW = 20
DEFAULT_SEARCH_TYPE = SearchType.GRAPH_COMPLETION
# Long queries are logged shortened; the decision itself saw all of it.
_LOGGED_QUERY_CHARS = 300


class RouteDecision(BaseModel):
    """Which search type a query routed to, and why.

    ``scores`` holds every target a rule fired for, highest first; ``fired`` the
    ids of those rules in table order. ``confident`` means the winner scored at
    least twice ``max(runner_up_score, 1)``; ``default`` means no target reached
    the threshold, so the default search type was chosen.
    """

    model_config = ConfigDict(frozen=True)

    search_type: SearchTypeField
    score: float
    runner_up: SearchTypeField | None
    runner_up_score: float
    scores: dict[str, float]
    fired: list[str]
    confident: bool
    default: bool


class Router:
    """A compiled rule table; ``route`` scores queries against it.

    Table order is the tie order. ``rules`` lists the table as given. Rules
    that are not in ``DEFAULT_RULES`` run bounded (see ``router.matcher``): a
    rule that would take more than ``RULE_TIMEOUT_S`` on its examples or on a
    short adversarial probe is refused here, and at query time one that runs
    out of time does not fire (logged as a warning).

    Raises:
        TypeError: an item of ``rules`` is not a ``Rule`` (build them with
            ``Rule(...)``, ``parse_rules`` or ``load_rules``).
        InvalidRuleError: a user rule whose pattern backtracks catastrophically.
        ValueError: a negative threshold or negation window.
    """

    def __init__(
        self,
        rules: Iterable[Rule] = DEFAULT_RULES,
        *,
        threshold: float = THRESHOLD,
        default: SearchTypeName = DEFAULT_SEARCH_TYPE,
        negation_window: int = NEGATION_WINDOW,
    ) -> None:
        if threshold < 0 or negation_window < 0:
            raise ValueError("threshold and negation_window must be >= 0")
        self.rules: tuple[Rule, ...] = tuple(rules)
        for rule in self.rules:
            if not isinstance(rule, Rule):
                raise TypeError(f"Router rules must be Rule objects, got {rule!r}")
        self.threshold = float(threshold)
        self.default = default
        self.negation_window = negation_window
        # Tie order: targets in the order of their first rule in the table.
        self._order = list(dict.fromkeys(rule.target for rule in self.rules))
        shipped = set(DEFAULT_RULES)
        for rule in self.rules:
            if rule not in shipped:
                check_rule_speed(rule)
        self._compiled = tuple(
            CompiledRule.build(
                id=r.id,
                pattern=r.pattern,
                target=r.target,
                weight=r.weight,
                case_sensitive=r.case_sensitive,
                bounded=r not in shipped,
            )
            for r in self.rules
        )
        # Unpacked per step: the loop runs once per rule per query, so attribute
        # lookups show up in the latency.
        self._plan = tuple((c.gate, c.scan, c.case_sensitive, c) for c in self._compiled)

    def route(self, query: str) -> RouteDecision:
        """Pick the search type for ``query`` and log the decision on ``query_router``.

        Raises:
            TypeError: ``query`` is not a string.
            InvalidInputError: ``query`` is empty or only whitespace.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        text = query.strip()
        if not text:
            raise InvalidInputError(
                "query is empty or only whitespace; pass the question to route."
            )
        lowered = text.lower()
        window = self.negation_window
        totals: dict[SearchTypeName, float] = {}
        fired: list[str] = []
        for gate, scan, case_sensitive, rule in self._plan:
            subject = text if case_sensitive else lowered
            # Most rules miss most queries. Inline the cheap rejections, since a
            # call per rule adds up: first plain substring searches...
            if gate is not None:
                for literal in gate:
                    if literal in subject:
                        break
                else:
                    continue
            # ...then one C-level scan for a possible start.
            try:
                found = scan(subject)
                if found is None or not rule.fires(subject, window, found):
                    continue
            except TimeoutError:  # only bounded (user) rules time out
                logger.warning(
                    "rule %r ran past %.0f ms on a %d-character query and was "
                    "skipped; simplify its pattern",
                    rule.id,
                    RULE_TIMEOUT_S * 1000,
                    len(subject),
                )
                continue
            fired.append(rule.id)
            totals[rule.target] = totals.get(rule.target, 0.0) + rule.weight
        decision = self._decide(totals, fired)
        _log_decision(decision, query)
        return decision

    def _decide(self, totals: dict[SearchTypeName, float], fired: list[str]) -> RouteDecision:
        # sorted() is stable, so equal scores keep the table's tie order.
        ranked = [t for t in self._order if t in totals]
        if len(ranked) > 1:
            ranked.sort(key=totals.__getitem__, reverse=True)
        scores = {str(t): totals[t] for t in ranked}
        default = not ranked or totals[ranked[0]] < self.threshold
        if default:
            winner = self.default
            score = totals.get(winner, 0.0)
            others = [t for t in ranked if t != winner]
        else:
            winner, score, others = ranked[0], totals[ranked[0]], ranked[1:]
        runner_up = others[0] if others else None
        runner_up_score = totals[runner_up] if runner_up is not None else 0.0
        return RouteDecision(
            search_type=winner,
            score=score,
            runner_up=runner_up,
            runner_up_score=runner_up_score,
            scores=scores,
            fired=fired,
            confident=score >= 2 * max(runner_up_score, 1.0),
            default=default,
        )


def _shorten(query: str) -> str:
    if len(query) <= _LOGGED_QUERY_CHARS:
        return query
    return f"{query[:_LOGGED_QUERY_CHARS]}... ({len(query)} chars)"


def _log_decision(decision: RouteDecision, query: str) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    if not decision.fired:
        logger.info(
            "no patterns matched, default=%s query=%r",
            decision.search_type,
            _shorten(query),
        )
    else:
        logger.info(
            "routed=%s score=%s query=%r scores=%s",
            decision.search_type,
            decision.score,
            _shorten(query),
            decision.scores,
        )


def log_override(decision: RouteDecision, user_chose: SearchType | str) -> bool:
    """Log ``Router override recorded`` when the caller's ``query_type`` differs
    from the routed one; return whether it differed.

    Raises:
        ValueError: ``user_chose`` names no search type.
    """
    chosen = parse_search_type(user_chose)
    if chosen == decision.search_type:
        return False
    logger.info(
        "Router override recorded: routed=%s, user_chose=%s",
        decision.search_type,
        chosen,
    )
    return True


_default_router: Router | None = None


def default_router() -> Router:
    """The shared router over ``DEFAULT_RULES`` (built on first use)."""
    global _default_router
    if _default_router is None:
        _default_router = Router()
    return _default_router


def route(query: str) -> RouteDecision:
    """Route ``query`` with the default rule table; see ``Router.route``.

    Raises:
        TypeError: ``query`` is not a string.
        InvalidInputError: ``query`` is empty or only whitespace.
    """
    return default_router().route(query)
