"""Wordings a fact depends on, read by the rule extractor alone: whose fact it is
("Tom and I", "left Acme to join"), what its value is ("resigned from Acme": an
organisation; "Acme Corp" also goes by "Acme") and when it held ("until 2020")."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine.core.graph import EntityType
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.resolution import resolve
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.supersession import stamp

WHEN = datetime(2024, 3, 1, 10, 0)


def extract(sentence: str, speaker: str = "Ann"):
    chunk = ChunkInput(
        chunk_id="c1", namespace="ns", text=sentence, speaker=speaker, timestamp=WHEN
    )
    return stamp(RuleBasedExtractor().extract_chunk(chunk), WHEN)


def facts(sentence: str, speaker: str = "Ann") -> set[tuple[str, str, str]]:
    extraction = extract(sentence, speaker)
    names = {e.id: e.name for e in extraction.entities}
    return {
        (names[r.source_id], r.predicate, names[r.target_id])
        for r in extraction.relations
        if r.predicate != "related_to"
    }


@pytest.mark.parametrize(
    ("sentence", "speaker", "holders"),
    [
        ("Tom and I broke up.", "Ann", {"Ann", "Tom"}),
        ("Tom and I just got engaged!", "Ann", {"Ann", "Tom"}),
        ("Ann and I got divorced last year.", "Tom", {"Ann", "Tom"}),
        ("We separated in May.", "Ann", {"Ann"}),
        ("My sister and I are single.", "Ann", {"Ann"}),
    ],
)
def test_a_state_of_a_couple_is_said_of_each_partner(sentence, speaker, holders):
    said = {s for s, p, _ in facts(sentence, speaker) if p.endswith("relationship")}
    said |= {s for s, p, _ in facts(sentence, speaker) if p == "relationship_status"}
    assert said == holders


@pytest.mark.parametrize(
    ("sentence", "absent"),
    [
        ("I left Acme to join Globex.", ("Acme", "joined", "Globex")),
        ("I asked Tom to move to Lyon.", ("Tom", "moved_to", "Lyon")),
    ],
)
def test_a_name_before_an_infinitive_is_not_its_subject(sentence, absent):
    assert absent not in facts(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["I resigned from Acme.", "I was laid off from Acme.", "I no longer work at Acme."],
)
def test_an_employer_that_ended_is_an_organisation(sentence):
    extraction = extract(sentence)
    (acme,) = [e for e in extraction.entities if e.name == "Acme"]
    assert acme.type is EntityType.ORGANIZATION


@pytest.mark.parametrize(
    ("sentence", "until", "since"),
    [
        ("I worked at Acme until 2020.", datetime(2020, 1, 1), None),
        ("I lived in Lyon till March 2021.", datetime(2021, 3, 1), None),
        # a later end of a plan is no start: it holds from its statement
        ("I'll live in Lyon until June.", None, WHEN),
        ("I moved to Lyon in March 2021.", None, datetime(2021, 3, 1)),
    ],
)
def test_until_a_date_says_when_a_fact_stopped(sentence, until, since):
    (fact,) = [r for r in extract(sentence).relations if r.family]
    assert (fact.valid_until, fact.valid_from) == (until, since)


def test_an_organisation_goes_by_its_name_without_its_legal_form():
    held, end = extract("I work for Acme Corp."), extract("I no longer work at Acme.")
    resolution = resolve([end], existing=held.entities)
    (ended,) = [r for r in resolution.graph.relations if r.predicate == "ended_employer"]
    (works,) = [r for r in held.relations if r.predicate == "works_for"]
    assert ended.target_id == works.target_id  # one entity: the end names the held value


@pytest.mark.parametrize("name", ["Acme Labs", "Acme Technologies", "Oxford University"])
def test_a_name_whose_last_word_is_no_legal_form_keeps_it(name):
    (entity,) = [e for e in extract(f"I work for {name}.").entities if e.name == name]
    assert entity.aliases == ()
