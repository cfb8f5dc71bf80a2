"""RouteDecision, logging, input errors, Cypher gating and pathological inputs."""

from __future__ import annotations

import json
import logging
import time

import pydantic
import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.search_types import SearchType
from router import (
    DEFAULT_RULES,
    RouteDecision,
    Router,
    Rule,
    log_override,
    route,
)


def test_decision_names_winner_runner_up_scores_and_fired_rules() -> None:
    decision = route("Why did the timeline slip after 2023?")
    assert decision.search_type is SearchType.TEMPORAL
    assert decision.score == 10.0  # period 4 + word 3 + year 3
    assert decision.runner_up is SearchType.GRAPH_COMPLETION_COT
    assert decision.runner_up_score == 4.0
    assert decision.scores == {"TEMPORAL": 10.0, "GRAPH_COMPLETION_COT": 4.0}
    assert list(decision.scores) == ["TEMPORAL", "GRAPH_COMPLETION_COT"]  # highest first
    assert decision.fired == ["cot.cue", "temporal.word", "temporal.period", "temporal.year"]
    assert decision.confident  # 10 >= 2 * 4
    assert not decision.default


def test_weights_add_once_per_rule() -> None:
    assert route("when? when? when?").score == 3.0


def test_confidence_against_close_runner_up_and_floor_of_one() -> None:
    assert not route("Summarize the timeline").confident  # 5 < 2 * 4
    assert route("because").confident  # 2 >= 2 * max(0, 1)
    assert not route("Why the timeline?").confident  # a 4-4 tie


def test_default_when_nothing_matched() -> None:
    decision = route("Who won Nobel Prizes?")
    assert decision.search_type is SearchType.GRAPH_COMPLETION
    assert decision.default
    assert (decision.score, decision.runner_up, decision.runner_up_score) == (0.0, None, 0.0)
    assert (decision.scores, decision.fired, decision.confident) == ({}, [], False)


def test_threshold_weak_cue_alone_routes_code_token_alone_does_not() -> None:
    assert route("because").search_type is SearchType.GRAPH_COMPLETION_COT
    decision = route("Where is `def recover()` mentioned in the incident notes?")
    assert decision.search_type is SearchType.GRAPH_COMPLETION
    assert decision.default
    assert decision.runner_up is SearchType.CODING_RULES
    assert decision.runner_up_score == 1.0
    assert decision.fired == ["coding.code_token"]


def test_decision_is_frozen_and_dumps_to_json() -> None:
    decision = route("How is Einstein related to Ulm?")
    with pytest.raises(pydantic.ValidationError):
        decision.score = 0.0  # type: ignore[misc]
    dumped = decision.model_dump(mode="json")
    assert json.loads(json.dumps(dumped)) == dumped
    assert dumped["search_type"] == "GRAPH_COMPLETION_CONTEXT_EXTENSION"
    assert RouteDecision.model_validate(dumped) == decision


def test_log_line_for_a_routed_query(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="query_router")
    route("What happened before the outage?")
    assert [r.name for r in caplog.records] == ["query_router"]
    assert caplog.records[0].levelno == logging.INFO
    assert caplog.records[0].getMessage() == (
        "routed=TEMPORAL score=3.0 query='What happened before the outage?' "
        "scores={'TEMPORAL': 3.0}"
    )


def test_log_line_for_the_default(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="query_router")
    route("Who won Nobel Prizes?")
    assert caplog.messages == [
        "no patterns matched, default=GRAPH_COMPLETION query='Who won Nobel Prizes?'"
    ]


def test_log_line_below_threshold_shows_the_weak_scores(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="query_router")
    route("the handler in server.py")
    assert caplog.messages == [
        "routed=GRAPH_COMPLETION score=0.0 query='the handler in server.py' "
        "scores={'CODING_RULES': 1.0}"
    ]


@pytest.mark.parametrize(
    "query", ["Who won Nobel Prizes?", "What happened before the outage?", "the handler in x.py"]
)
def test_a_formatted_log_line_names_the_router_once(
    caplog: pytest.LogCaptureFixture, query: str
) -> None:
    caplog.set_level(logging.INFO, logger="query_router")
    route(query)
    # the format recall-engine-server logs with; the logger's name comes from %(name)s
    formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
    (line,) = [formatter.format(r) for r in caplog.records]
    assert line.startswith("INFO query_router: ") and line.count("query_router") == 1


def test_long_query_is_shortened_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="query_router")
    route("x " * 5000 + "why")
    assert len(caplog.messages[0]) < 500
    assert "(10003 chars)" in caplog.messages[0]


def test_override_is_logged_only_when_the_choice_differs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    decision = route("What changed in 2024?")
    caplog.set_level(logging.INFO, logger="query_router")
    assert log_override(decision, SearchType.GRAPH_COMPLETION) is True
    assert log_override(decision, "temporal") is False
    assert caplog.messages == [
        "Router override recorded: routed=TEMPORAL, user_chose=GRAPH_COMPLETION"
    ]


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
def test_empty_query_is_refused(query: str) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        route(query)
    with pytest.raises(ValueError):
        route(query)


@pytest.mark.parametrize("query", [None, 42, b"why", ["why"]])
def test_non_string_query_is_a_type_error(query: object) -> None:
    with pytest.raises(TypeError, match="str"):
        route(query)  # type: ignore[arg-type]


NEVER_ROUTED = {
    SearchType.SUMMARIES,
    SearchType.CHUNKS,
    SearchType.RAG_COMPLETION,
    SearchType.HYBRID_COMPLETION,
    SearchType.TRIPLET_COMPLETION,
    SearchType.GRAPH_COMPLETION_DECOMPOSITION,
    SearchType.NATURAL_LANGUAGE,
    SearchType.AGENTIC_COMPLETION,
    SearchType.FEELING_LUCKY,
}


def test_no_default_rule_targets_a_never_routed_type() -> None:
    assert not {rule.target for rule in DEFAULT_RULES} & NEVER_ROUTED


def test_default_rule_table_is_golden() -> None:
    # Changing the table changes routing for every user: do it on purpose.
    assert [(r.id, r.target.value, r.weight) for r in DEFAULT_RULES] == [
        ("cypher.clause", "CYPHER", 10.0),
        ("cypher.edge", "CYPHER", 10.0),
        ("coding.vocabulary", "CODING_RULES", 5.0),
        ("coding.code_token", "CODING_RULES", 1.0),
        ("lexical.quoted_query", "CHUNKS_LEXICAL", 8.0),
        ("lexical.exact_wording", "CHUNKS_LEXICAL", 4.0),
        ("summary.cue", "GRAPH_SUMMARY_COMPLETION", 5.0),
        ("cot.cue", "GRAPH_COMPLETION_COT", 4.0),
        ("cot.connective", "GRAPH_COMPLETION_COT", 2.0),
        ("context.how_related", "GRAPH_COMPLETION_CONTEXT_EXTENSION", 5.0),
        ("context.what_connects", "GRAPH_COMPLETION_CONTEXT_EXTENSION", 5.0),
        ("context.relation_word", "GRAPH_COMPLETION_CONTEXT_EXTENSION", 3.0),
        ("temporal.word", "TEMPORAL", 3.0),
        ("temporal.period", "TEMPORAL", 4.0),
        ("temporal.year", "TEMPORAL", 3.0),
        ("temporal.year_range", "TEMPORAL", 6.0),
        ("temporal.relative", "TEMPORAL", 3.0),
        ("temporal.ago", "TEMPORAL", 3.0),
        ("temporal.month", "TEMPORAL", 3.0),
        ("temporal.month_day", "TEMPORAL", 3.0),
        ("broad.how_many", "BROAD", 4.0),
        ("broad.list_all", "BROAD", 4.0),
        ("broad.total", "BROAD", 4.0),
        ("broad.most", "BROAD", 4.0),
        ("report.overview", "GRAPH_REPORT", 6.0),
    ]


def test_custom_router_threshold_default_and_tie_order() -> None:
    rules = [
        Rule(id="b", pattern=r"\bbeta\b", target=SearchType.TEMPORAL, weight=1.0),
        Rule(id="a", pattern=r"\balpha\b", target=SearchType.CHUNKS, weight=1.0),
    ]
    router = Router(rules, threshold=1.0, default=SearchType.RAG_COMPLETION, negation_window=0)
    assert router.route("alpha beta").search_type is SearchType.TEMPORAL  # table order
    assert router.route("gamma").search_type is SearchType.RAG_COMPLETION
    assert router.route("not alpha").search_type is SearchType.CHUNKS  # window 0
    with pytest.raises(ValueError):
        Router(rules, threshold=-1)
    with pytest.raises(TypeError, match="Rule objects"):
        Router([{"id": "x"}])  # type: ignore[list-item]


def test_case_sensitive_rule_sees_the_original_case() -> None:
    router = Router(
        [Rule(id="s", pattern="SKU", target=SearchType.CHUNKS, weight=3, case_sensitive=True)]
    )
    assert router.route("find SKU 12").search_type is SearchType.CHUNKS
    assert router.route("find sku 12").default
    assert router.route("NOT SKU 12").default  # negation ignores case
    inline = Rule(
        id="i", pattern="(?i)SKU", target=SearchType.CHUNKS, weight=3, case_sensitive=True
    )
    assert Router([inline]).route("find sku 12").search_type is SearchType.CHUNKS


PATHOLOGICAL = [
    ("100 kB of prose, cue at the end", "the quick brown fox jumps. " * 3800 + "why?", "COT"),
    ("10,000 repeated 'a '", "a " * 10_000, "GRAPH_COMPLETION"),
    ("50,000 repeated 'a '", "a " * 50_000, "GRAPH_COMPLETION"),
    ("one 100 kB word", "x" * 100_000, "GRAPH_COMPLETION"),
    ("100 kB of double quotes", '"' * 100_000, "GRAPH_COMPLETION"),
    ("nested quotes around a word", '"' * 50_000 + "why" + '"' * 50_000, "COT"),
    ("one quoted 100 kB phrase", '"' + "y " * 50_000 + '"', "CHUNKS_LEXICAL"),
    ("deep parentheses", "(" * 50_000 + ")" * 50_000, "GRAPH_COMPLETION"),
    ("how-is without a relation", "how is " * 15_000, "GRAPH_COMPLETION"),
    ("near-miss prefixes", "awhy bwhen " * 9_000, "GRAPH_COMPLETION"),
    ("negated cues everywhere", "not why " * 12_500, "GRAPH_COMPLETION"),
    ("digits", "1" * 100_000, "GRAPH_COMPLETION"),
    ("years", "1999 " * 20_000, "TEMPORAL"),
    (
        "whitespace around a cue",
        " " * 50_000 + "summary" + "\n" * 50_000,
        "GRAPH_SUMMARY_COMPLETION",
    ),
]


@pytest.mark.parametrize(
    ("name", "query", "expected"), PATHOLOGICAL, ids=[p[0] for p in PATHOLOGICAL]
)
def test_pathological_inputs_route_quickly(name: str, query: str, expected: str) -> None:
    started = time.thread_time()  # CPU time of this thread: the work, not the machine's load
    decision = route(query)
    spent = time.thread_time() - started
    expected_type = "GRAPH_COMPLETION_COT" if expected == "COT" else expected
    assert decision.search_type.value == expected_type
    # Catches a quadratic scan (seconds of CPU on 100 kB), not a slow machine;
    # bench/router.py reports the real figures.
    assert spent < 0.5, f"{name} used {spent:.3f} s of CPU"
