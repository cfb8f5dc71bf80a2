"""Predicate families and state patterns (each rule's own examples), and the
timeline that orders a subject's facts of one family."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine.core.facts import Statement, Validity, timeline, valid_at
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.rules_states import STATE_PATTERNS
from recall_engine.graph.supersession import FAMILY_RULES, family_of, stamp

WHEN = datetime(2024, 5, 1, 12, 0)


def extract(sentence: str):
    chunk = ChunkInput(chunk_id="c1", namespace="ns", text=sentence, speaker="Ann", timestamp=WHEN)
    extraction = stamp(RuleBasedExtractor().extract_chunk(chunk), WHEN)
    names = {e.id: e.name for e in extraction.entities}
    return [(names[r.source_id], r.predicate, names[r.target_id], r) for r in extraction.relations]


@pytest.mark.parametrize(
    ("sentence", "family"),
    [(s, f) for rule in FAMILY_RULES for s, f in rule.examples],
)
def test_family_rule_examples(sentence, family):
    families = {r.family for *_, r in extract(sentence)} - {None}
    assert families == ({family} if family else set())


@pytest.mark.parametrize(
    ("sentence", "predicate", "value"),
    [example for pattern in STATE_PATTERNS for example in pattern.examples],
)
def test_state_pattern_examples(sentence, predicate, value):
    found = {(s, p, o) for s, p, o, _ in extract(sentence)}
    assert ("Ann", predicate, value) in found


def test_every_extracted_fact_has_its_statement_time():
    facts = extract("I live in Lyon, near the old town.")
    assert [r.valid_from for *_, r in facts] == [WHEN]


@pytest.mark.parametrize(
    ("predicate", "obj", "family"),
    [
        ("is_a", "software developer", "job"),
        ("is_a", "morning person", None),
        ("favourite_food", "sushi", "favourite:food"),
        ("visited", "Paris", None),
    ],
)
def test_family_of(predicate, obj, family):
    assert family_of(predicate, obj) == family


def test_words_that_are_no_state_yield_none():
    assert not [f for f in extract("I feel like going out tonight.") if f[1] == "feels"]


def test_a_feeling_told_of_a_past_moment_is_no_mood():
    # "felt" in the simple past tells how a moment was, not a state that holds
    assert not [f for f in extract("I felt tiny and in awe of the sky.") if f[1] == "feels"]
    assert [f[2] for f in extract("I have felt tired for weeks.") if f[1] == "feels"] == ["tired"]


def s(rid: str, target: str, when: str | None, chunk: str = "") -> Statement:
    stated = datetime.fromisoformat(when) if when else None
    return Statement(rid, target, chunk or f"c-{rid}", stated)


def test_timeline_a_new_value_ends_the_old():
    out = timeline([s("lyon", "L", "2023-01-05"), s("paris", "P", "2024-03-01")])
    assert out["lyon"] == Validity(datetime(2024, 3, 1), "paris", "c-paris")
    assert out["paris"] == Validity()


def test_timeline_one_statement_never_supersedes_itself():
    # "I moved to Paris last week, I live in Montmartre now": one message, two values
    out = timeline(
        [
            s("lyon", "L", "2023-01-05"),
            s("paris", "P", "2024-03-01", "c-m"),
            s("montmartre", "M", "2024-03-01", "c-m"),
        ]
    )
    assert out["paris"] == out["montmartre"] == Validity()
    assert out["lyon"].valid_until == datetime(2024, 3, 1)


def test_timeline_a_restatement_ends_nothing():
    out = timeline(
        [
            s("paris", "P", "2024-03-01", "c-m"),
            s("montmartre", "M", "2024-03-01", "c-m"),
            s("paris-again", "P", "2024-05-01"),
        ]
    )
    assert set(out.values()) == {Validity()}


def test_timeline_orders_by_statement_time_and_skips_undated():
    out = timeline(
        [s("late", "P", "2024-03-01"), s("early", "L", "2023-01-05"), s("old", "X", None)]
    )
    assert out["early"].superseded_by == "late"
    assert out["late"] == out["old"] == Validity()


def test_valid_at_is_half_open():
    start, end = datetime(2023, 1, 5), datetime(2024, 3, 1)
    assert valid_at(start, end, datetime(2023, 6, 1))
    assert not valid_at(start, end, end)
    assert not valid_at(start, end, datetime(2022, 1, 1))
    assert valid_at(start, None, datetime(2030, 1, 1))


def end(rid: str, target: str, when: str) -> Statement:
    return Statement(rid, target, f"c-{rid}", datetime.fromisoformat(when), ends=True)


def test_an_end_with_an_unknown_value_ends_every_current_fact():
    out = timeline([s("nurse", "N", "2023-01-05"), end("quit", "nursing", "2024-06-01")])
    assert out["nurse"] == Validity(datetime(2024, 6, 1), "quit", "c-quit")
    assert out["quit"] == Validity(datetime(2024, 6, 1))  # an end never holds


def test_an_end_of_a_past_value_ends_nothing_current():
    out = timeline(
        [
            s("lyon", "L", "2023-01-05"),
            s("paris", "P", "2024-03-01"),
            end("not-lyon", "L", "2024-05-01"),
        ]
    )
    assert out["paris"] == Validity()
    assert out["lyon"].superseded_by == "paris"


def test_an_end_with_a_new_value_is_superseded_by_the_new_value():
    # "I quit nursing and I am now a software developer"
    out = timeline(
        [
            s("nurse", "N", "2023-01-05"),
            end("quit", "nursing", "2024-06-01"),
            Statement("dev", "D", "c-quit", datetime(2024, 6, 1)),
        ]
    )
    assert out["nurse"].superseded_by == "dev"
    assert out["dev"] == Validity()


def past(rid: str, target: str, when: str) -> Statement:
    return Statement(rid, target, f"c-{rid}", datetime.fromisoformat(when), past=True)


def test_a_past_statement_held_until_it_was_said_and_ends_only_its_own_value():
    # "I live in Paris" (2023), then "I used to live in Lyon" (2024): Paris still holds
    out = timeline([s("paris", "P", "2023-01-05"), past("lyon", "L", "2024-03-01")])
    assert out["paris"] == Validity()
    assert out["lyon"] == Validity(datetime(2024, 3, 1))


def test_a_past_statement_ends_its_value_when_that_still_held():
    out = timeline([s("lyon", "L", "2023-01-05"), past("used-to", "L", "2024-03-01")])
    assert out["lyon"].valid_until == datetime(2024, 3, 1)
    assert out["used-to"].valid_until == datetime(2024, 3, 1)


def test_a_past_statement_with_a_new_value_is_superseded_by_it():
    # "I used to live in Lyon, now I live in Paris": one message
    out = timeline(
        [past("lyon", "L", "2024-03-01"), Statement("paris", "P", "c-lyon", datetime(2024, 3, 1))]
    )
    assert out["lyon"] == Validity(datetime(2024, 3, 1), "paris", "c-lyon")
    assert out["paris"] == Validity()


def test_a_family_of_several_values_adds_and_ends_only_what_is_named():
    pets = [s("rex", "R", "2023-01-05"), s("tom", "T", "2023-06-01")]
    out = timeline(pets, multi_valued=True)
    assert set(out.values()) == {Validity()}  # a second pet is no replacement
    out = timeline([*pets, end("died", "R", "2024-01-01")], multi_valued=True)
    assert out["rex"] == Validity(datetime(2024, 1, 1), "died", "c-died")
    assert out["tom"] == Validity()


def test_an_end_of_a_value_never_held_ends_nothing_of_several():
    # "My friend's dog Rex died": no pet of the subject's is named
    pets = [s("biscuit", "B", "2023-01-05"), s("tom", "T", "2023-06-01")]
    out = timeline([*pets, end("gone", "R", "2024-01-01")], multi_valued=True)
    assert out["biscuit"] == out["tom"] == Validity()
    out = timeline([pets[0], end("gone", "R", "2024-01-01")], multi_valued=True)
    assert out["biscuit"] == Validity()


def test_used_to_makes_a_past_fact():
    (fact,) = [r for _, p, o, r in extract("I used to live in Lyon.") if p == "lives_in"]
    assert fact.valid_from is None and fact.valid_until == WHEN
    assert fact.family == "home"


def test_a_stated_year_dates_the_fact_and_a_later_date_does_not():
    (fact,) = [r for _, p, _, r in extract("In 2019 I moved to Berlin.") if p == "moved_to"]
    assert fact.valid_from == datetime(2019, 1, 1)
    (later,) = [r for _, p, _, r in extract("In 2030 I moved to Berlin.") if p == "moved_to"]
    assert later.valid_from == WHEN


def test_a_document_orders_its_sentences_a_message_does_not():
    text = "Ann lived in Lyon for years. Ann moved to Paris."
    chunk = ChunkInput(chunk_id="c1", namespace="ns", text=text)
    extraction = RuleBasedExtractor().extract_chunk(chunk)
    ordered = {r.predicate: r.valid_from for r in stamp(extraction, WHEN, position=2).relations}
    assert WHEN < ordered["lives_in"] < ordered["moved_to"]
    assert ordered["lives_in"] - WHEN >= 2 * (ordered["moved_to"] - ordered["lives_in"])
    same = {r.predicate: r.valid_from for r in stamp(extraction, WHEN).relations}
    assert same["lives_in"] == same["moved_to"] == WHEN
