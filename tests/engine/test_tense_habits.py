"""A question about a habit ("What does Ann drink now?") answered from the subject's
preferences, and a family of several kinds (a phone, a drink) answered by the kind
the question names: offline, through the default recall()."""

from datetime import datetime

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.facts import Fact
from recall_engine.pipeline.tense_aspect import habit_family, of_kind

DRINKS = [
    ("D1", "I switched to rooibos a while ago, I have it every morning.", "2023-01-05T10:00:00"),
    ("D2", "I switched from rooibos to green tea, it suits me better.", "2023-06-05T10:00:00"),
    ("D3", "I have switched to chai now, no more green tea for me.", "2024-01-05T10:00:00"),
]
FILLER = [
    ("F1", "The traffic this morning was terrible.", "2023-02-05T10:00:00"),
    ("F2", "My sister is visiting next weekend.", "2023-07-05T10:00:00"),
]


def _chat(turns):
    return Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in turns]
    )


async def _answer(engine, question):
    (result,) = await engine.recall(question, datasets=["ann"])
    return result


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("What does Ann drink now?", "chai"),
        ("What did Ann drink at first?", "rooibos"),
        ("What did Ann drink before switching to chai?", "green tea"),
    ],
)
async def test_a_habit_question_is_answered_from_the_preferences(engine, question, first):
    await engine.remember(_chat(sorted(DRINKS + FILLER, key=lambda t: t[2])), dataset_name="ann")
    result = await _answer(engine, question)
    assert result.metadata["answer_type"] == "fact"
    assert result.text.startswith(first)


async def test_the_kind_asked_about_answers_not_another_kind(engine):
    turns = [
        ("K1", "I switched my phone to a Pixel last year.", "2023-01-05T10:00:00"),
        ("K2", "I switched to green tea for my morning drink.", "2023-03-05T10:00:00"),
        ("K3", "I switched my phone from the Pixel to an iPhone.", "2024-01-05T10:00:00"),
    ]
    await engine.remember(_chat(turns), dataset_name="ann")
    drink = await _answer(engine, "What does Ann drink now?")
    assert drink.text.startswith("green tea") and "iPhone" not in drink.text
    phone = await _answer(engine, "Which phone does Ann prefer now?")
    assert phone.text.startswith("iPhone") and "green tea" not in phone.text


async def test_a_verb_that_memory_says_is_no_habit_question(engine):
    turns = [
        ("P1", "I switched to rooibos a while ago.", "2023-01-05T10:00:00"),
        ("P2", "I paint landscapes on Sundays, mostly lakes.", "2023-02-05T10:00:00"),
    ]
    await engine.remember(_chat(turns), dataset_name="ann")
    result = await _answer(engine, "What does Ann paint now?")
    assert result.metadata.get("answer_type") != "fact"
    assert "rooibos" not in result.text


def _fact(rid: str, predicate: str, obj: str, family: str = "preference") -> Fact:
    return Fact(
        id=rid,
        subject="Ann",
        subject_id="ann",
        predicate=predicate,
        object=obj,
        object_id=obj.lower(),
        family=family,
        valid_from=datetime(2024, 1, 1),
    )


def test_habit_family_needs_a_verb_no_memory_says_and_preferences():
    prefs = [_fact("t", "prefers", "tea")]
    q = "What does Ann drink now?"
    assert habit_family(q, "What Ann drink ?", prefs, {"tea", "morn"}) == "preference"
    assert habit_family(q, "What Ann drink ?", prefs, {"drink"}) is None
    assert (
        habit_family(q, "What Ann drink ?", [_fact("h", "lives_in", "Lyon", "home")], set()) is None
    )
    assert habit_family("Where does Ann go?", "Where Ann go ?", prefs, set()) is None


def test_of_kind_narrows_a_family_of_several_kinds():
    facts = [
        _fact("p", "prefers_phone", "iPhone"),
        _fact("d", "prefers_drink", "tea"),
        _fact("n", "prefers", "jazz"),
    ]
    assert [f.id for f in of_kind(facts, "preference", "What phone Ann use ?")] == ["p"]
    assert [f.id for f in of_kind(facts, "preference", "What Ann listen ?")] == ["n"]
    assert of_kind(facts[:1], "preference", "What phone Ann use ?") is None


def test_of_kind_keeps_every_species_of_several_pets_unless_one_is_named():
    pets = [
        _fact("c", "has_pet_cat", "Shadow", "pet"),
        _fact("d", "has_pet_dog", "Rex", "pet"),
        _fact("b", "has_pet", "Biscuit", "pet"),
    ]
    assert of_kind(pets, "pet", "What pets Ann have ?") is None
    assert [f.id for f in of_kind(pets, "pet", "What cat Ann have ?")] == ["c"]
