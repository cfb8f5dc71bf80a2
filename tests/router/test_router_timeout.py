"""User rules are matched under a time budget; catastrophic ones are refused at load (issue 10)."""

import json
import time

import pytest

from recall_engine.core.errors import InvalidRuleError
from recall_engine.core.search_types import SearchType
from router import DEFAULT_RULES, Router, Rule, load_rules, matcher, scorer

EVIL = "(a|aa)+$"


def _rule(pattern: str, examples: tuple[str, ...] = ()) -> Rule:
    return Rule(
        id="user.evil", pattern=pattern, target=SearchType.SUMMARIES, weight=3, examples=examples
    )


def test_a_catastrophic_rule_is_refused_when_the_router_is_built():
    # Unbounded, (a|aa)+$ on a 64-character probe backtracks for hours: that it is
    # refused at all shows the probe was cut by the budget.
    with pytest.raises(InvalidRuleError, match=r"user.evil.*backtracks catastrophically"):
        Router([*DEFAULT_RULES, _rule(EVIL)])


def test_a_catastrophic_rule_is_refused_by_load_rules_naming_the_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": [_rule(EVIL).to_dict()]}))
    with pytest.raises(InvalidRuleError, match=r"rules.json: .*user.evil"):
        load_rules(path, base=DEFAULT_RULES)


def test_a_rule_slow_on_its_own_example_is_refused():
    with pytest.raises(InvalidRuleError, match="took more than"):
        Router([_rule(r"(x+x+)+y|(b|bb)+c", examples=("b" * 40,))])


def test_ordinary_user_rules_still_route():
    rule = Rule(id="user.docs", pattern=r"\bdocs?\b", target=SearchType.SUMMARIES, weight=3)
    router = Router([*DEFAULT_RULES, rule])
    assert router.route("Where are the docs?").search_type is SearchType.SUMMARIES
    assert router.route("not the docs please").search_type is not SearchType.SUMMARIES


def test_a_rule_that_runs_out_of_time_on_a_query_does_not_fire(monkeypatch, caplog):
    monkeypatch.setattr(scorer, "check_rule_speed", lambda rule: None)  # slip past the load check
    router = Router([*DEFAULT_RULES, _rule(EVIL)])
    started = time.thread_time()  # CPU time of this thread: the work, not the machine's load
    decision = router.route("a" * 60 + "!")
    spent = time.thread_time() - started
    assert "user.evil" not in decision.fired
    assert "ran past" in caplog.text
    # The budget is wall time, so the search stopped having used at most that much CPU.
    assert spent < 10 * matcher.RULE_TIMEOUT_S


async def test_routing_stays_bounded_when_query_type_is_given(
    tmp_path, hash_embedder, monkeypatch, caplog
):
    from recall_engine import RecallEngine

    monkeypatch.setattr(scorer, "check_rule_speed", lambda rule: None)
    monkeypatch.setattr("router.rules.check_rule_speed", lambda rule: None)
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": [_rule(EVIL).to_dict()]}))
    async with RecallEngine(tmp_path / "data", embedder=hash_embedder, router_rules=path) as eng:
        await eng.remember("aaaa is a word.")
        results = await eng.recall("a" * 60 + "!", SearchType.CHUNKS, only_context=True)
    # The router still ran (to log the override), and the budget cut the rule.
    assert "user.evil" in caplog.text and "ran past" in caplog.text
    assert all(r.search_type is SearchType.CHUNKS for r in results)  # it answered, pinned
