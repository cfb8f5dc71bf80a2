"""A value that ended with nothing after it: "I don't live in Lyon anymore." leaves no
current home, and the offline answer to a present question says so from the facts
instead of naming the ended value, as does an ``as_of`` question after the end; past
questions, and ``as_of`` while it held, answer the value."""

import pytest

from recall_engine import Conversation, Message, RecallEngine

TURNS = [
    ("a1", "I live in Lyon.", "2023-01-05T10:00:00"),
    ("a2", "I don't live in Lyon anymore.", "2024-03-01T10:00:00"),
]


@pytest.fixture
async def ann(tmp_path):
    engine = RecallEngine(tmp_path / "data")  # the packaged offline embedder
    for i, text, ts in TURNS:
        chat = Conversation(messages=[Message(id=i, speaker="Ann", text=text, timestamp=ts)])
        await engine.remember(chat, dataset_name="ann")
    yield engine
    engine.close()


async def _answer(engine, question, **kwargs):
    (result,) = await engine.recall(question, datasets=["ann"], **kwargs)
    assert result.metadata["answer_mode"] == "extractive"
    return result


async def test_the_facts_hold_no_current_home(ann):
    (lyon,) = await ann.facts("Ann")
    assert (lyon.object, lyon.current) == ("Lyon", False)
    assert await ann.facts("Ann", history=False) == []


@pytest.mark.parametrize("question", ["Where does Ann live now?", "Where does Ann live?"])
async def test_a_present_question_says_no_current_value_is_known(ann, question):
    result = await _answer(ann, question)
    assert result.text == "No current home is known: Lyon until March 2024"
    assert result.metadata["answer_type"] == "fact"
    assert result.metadata["answer_facts"] == [
        "Ann lives_in Lyon (from 2023-01-05; until 2024-03-01; superseded by: ended_home Lyon)"
    ]


async def test_a_past_question_still_answers_the_ended_value(ann):
    result = await _answer(ann, "Where did Ann live in 2023?")
    assert result.text == "Lyon (from January 2023 until March 2024)"
    assert result.metadata["answer_type"] == "fact"


async def test_as_of_while_it_held_still_answers_it(ann):
    result = await _answer(ann, "Where does Ann live?", as_of="2023-06-01")
    assert result.text == "Lyon, since January 2023 (as of 2023-06-01)"
    assert result.metadata["answer_type"] == "fact"


async def test_as_of_after_the_end_says_no_value_was_known_then(ann):
    result = await _answer(ann, "Where does Ann live?", as_of="2024-06-01")
    assert result.text == "No home is known as of 2024-06-01: Lyon until March 2024"
    assert result.metadata["answer_type"] == "fact"


async def test_after_several_homes_it_names_the_last_and_what_it_replaced(tmp_path):
    engine = RecallEngine(tmp_path / "data")
    turns = [
        *TURNS[:1],
        ("b1", "I moved to Paris last week.", "2024-03-01T10:00:00"),
        ("b2", "I don't live in Paris anymore.", "2025-05-01T10:00:00"),
    ]
    for i, text, ts in turns:
        chat = Conversation(messages=[Message(id=i, speaker="Ann", text=text, timestamp=ts)])
        await engine.remember(chat, dataset_name="ann")
    result = await _answer(engine, "Where does Ann live now?")
    engine.close()
    assert result.text == "No current home is known: Paris until May 2025; before that Lyon"
    assert result.metadata["answer_type"] == "fact"
