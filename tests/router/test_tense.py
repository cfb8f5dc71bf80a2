"""The tense table: every rule's examples read as the rule says, and the reading's shape."""

import pytest

from recall_engine.core.errors import InvalidRuleError
from router.tense import TenseRule, default_tense_rules, read_tense

CASES = [(rule, example) for rule in default_tense_rules() for example in rule.examples]


@pytest.mark.parametrize(("rule", "example"), CASES, ids=[f"{r.id}:{e}" for r, e in CASES])
def test_each_rule_example_reads_as_its_rule(rule, example):
    reading = read_tense(example)
    assert rule.id in reading.fired
    assert reading.reading == rule.reading
    if rule.period is not None:
        assert reading.period == rule.period


@pytest.mark.parametrize(
    ("question", "period", "anchor"),
    [
        ("Where did Ann live before Paris?", "before", "paris"),
        ("Where did he live before he moved to Berlin?", "before", "berlin"),
        ("Who was her neighbour when she lived in Lyon?", "during", "lyon"),
        ("What was Ann's job in 2023?", "year", "2023"),
        ("What was Ann's first job?", "first", None),
        ("Where did Ann use to live?", "previous", None),
    ],
)
def test_past_periods_capture_their_anchor(question, period, anchor):
    reading = read_tense(question)
    assert (reading.reading, reading.period, reading.anchor) == ("past", period, anchor)


def test_no_cue_or_a_tie_reads_as_none():
    assert read_tense("Tell me about the neighbour").reading == "none"
    assert read_tense("Is it what it was?").reading == "none"  # one present, one past verb


def test_metadata_names_reading_period_and_rules():
    meta = read_tense("Where did Ann live before Paris?").metadata()
    assert meta == {
        "reading": "past",
        "period": {"kind": "before", "anchor": "paris"},
        "fired": ["past.verb", "past.before"],
    }


def test_bad_rules_are_refused():
    with pytest.raises(InvalidRuleError, match="reading"):
        TenseRule(id="x", pattern="now", reading="future", weight=1)
    with pytest.raises(InvalidRuleError, match="empty string"):
        TenseRule(id="x", pattern="a*", reading="past", weight=1)
    with pytest.raises(InvalidRuleError, match="period"):
        TenseRule(id="x", pattern="then", reading="past", weight=1, period="later")


def test_without_cues_keeps_what_the_question_asks_for():
    reading = read_tense("Who was Ann's neighbour when she lived in Lyon?")
    assert reading.without_cues("Who was Ann's neighbour when she lived in Lyon?") == (
        "Who Ann's neighbour ?"
    )
    now = read_tense("Is this where Ann lives now?")
    assert now.without_cues("Is this where Ann lives now?") == "this where Ann lives ?"
