"""A fact that holds over time is taken only from a clause that asserts it: no
negation, question, condition, modal or undated plan (``graph.rules_mood``)."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.rules_mood import MOOD_RULES
from recall_engine.graph.supersession import stamp

WHEN = datetime(2024, 3, 1, 10, 0)


def facts(sentence: str, *, speaker: str | None = "Ann"):
    chunk = ChunkInput(
        chunk_id="c1", namespace="ns", text=sentence, speaker=speaker, timestamp=WHEN
    )
    extraction = stamp(RuleBasedExtractor().extract_chunk(chunk), WHEN)
    names = {e.id: e.name for e in extraction.entities}
    return [
        (names[r.source_id], r.predicate, names[r.target_id], r)
        for r in extraction.relations
        if r.family is not None
    ]


@pytest.mark.parametrize(
    ("sentence", "wanted"), [example for rule in MOOD_RULES for example in rule.examples]
)
def test_mood_rule_examples(sentence, wanted):
    assert bool(facts(sentence)) is wanted


@pytest.mark.parametrize(
    "sentence",
    [
        "I don't live in Paris.",
        "I never worked at Initech.",
        "I have never lived in Berlin.",
        "I've never been a nurse.",
        "I don't work for Initech.",
        "If I moved to Berlin, I would miss my friends.",
        "If I lived in Berlin I'd be happier.",
        "I might move to Oslo.",
        "I would never work at Initech.",
        "I'm going to move to Oslo.",
        "Should I move to Oslo?",
        "If we broke up, I'd be sad.",
    ],
)
def test_a_clause_that_asserts_nothing_states_no_fact(sentence):
    assert facts(sentence) == []


def test_the_names_of_an_unasserted_clause_stay_related():
    chunk = ChunkInput(chunk_id="c1", namespace="ns", text="I might move to Oslo.", speaker="Ann")
    extraction = RuleBasedExtractor().extract_chunk(chunk)
    assert [r.predicate for r in extraction.relations] == ["related_to"]


@pytest.mark.parametrize(
    ("sentence", "since"),
    [
        ("I'm moving to Oslo next month.", datetime(2024, 4, 1)),
        ("I will move to Oslo in June.", datetime(2024, 6, 1)),
    ],
)
def test_a_plan_with_a_later_date_holds_from_that_date(sentence, since):
    ((_, predicate, place, relation),) = facts(sentence)
    assert (predicate, place) == ("moved_to", "Oslo")
    assert relation.valid_from == since


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("I moved to Oslo last week.", ("moved_to", "Oslo")),
        ("I'd moved to Oslo before we met.", ("moved_to", "Oslo")),
        ("I moved to Oslo last week, didn't I tell you?", ("moved_to", "Oslo")),
        ("If you ask me, I moved to Oslo at the right time.", ("moved_to", "Oslo")),
        ("I don't live in Lyon anymore.", ("ended_home", "Lyon")),
    ],
)
def test_an_asserted_clause_still_states_its_fact(sentence, fact):
    assert fact in {(p, o) for _, p, o, _ in facts(sentence)}
    assert all(r.valid_from == WHEN for *_, r in facts(sentence) if r.valid_until is None)
