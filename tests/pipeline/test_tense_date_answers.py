"""A question naming a period ("since 2022", "after March 2023", "in late 2023", "last
summer") is answered through ``recall()`` from the values that held in that period,
and a number that is no year names none."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine import Conversation, Message, RecallEngine


@pytest.fixture
async def ann(engine: RecallEngine) -> RecallEngine:
    said = [
        ("m1", "I live in Lyon.", datetime(2022, 1, 5)),
        ("m2", "I moved to Paris.", datetime(2023, 3, 9)),
        ("m3", "I moved to Berlin.", datetime(2024, 2, 10)),
    ]
    chat = Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in said]
    )
    await engine.remember(chat, dataset_name="ann")
    return engine


def _named(text: str) -> set[str]:
    """The homes an answer names before its dates."""
    return {city for city in ("Lyon", "Paris", "Berlin") if city in text.split("(")[0]}


@pytest.mark.parametrize(
    "question, how, held",
    [
        # a question about now, over a period up to now: every home since then
        ("Where has Ann lived since 2022?", {}, {"Lyon", "Paris", "Berlin"}),
        ("Where has Ann lived since April 2023?", {}, {"Paris", "Berlin"}),
        ("Where has Ann lived since April 2023?", {"as_of": "2023-12-01"}, {"Paris"}),
        # a past question, open at its end
        ("Where did Ann live after March 2023?", {}, {"Paris", "Berlin"}),
        # a third of a year
        ("Where did Ann live in late 2023?", {}, {"Paris"}),
        # relative: to the chat's last message (10 February 2024), or to as_of
        ("Where did Ann live last summer?", {}, {"Paris"}),
        ("Where did Ann live two years ago?", {"as_of": "2025-06-01"}, {"Lyon", "Paris"}),
    ],
)
async def test_a_period_is_answered_from_the_values_held_in_it(ann, question, how, held):
    (result,) = await ann.recall(question, datasets=["ann"], **how)
    assert result.metadata["answer_type"] == "fact", result.text
    assert _named(result.text) == held, result.text
    period = result.metadata["temporal"]["period"]
    assert period is not None and period["kind"] == "date", period


async def test_since_reads_a_period_open_at_its_end(ann):
    (result,) = await ann.recall("Where has Ann lived since April 2023?", datasets=["ann"])
    period = result.metadata["temporal"]["period"]
    assert period["start"] == "2023-04-01T00:00:00" and period["end"] is None
    assert result.metadata["temporal"]["reading"] == "present"


@pytest.mark.parametrize(
    "question", ["Where did Ann live in flat 2024?", "Where does Ann live in room 2024?"]
)
async def test_a_number_that_is_no_year_names_no_period(ann, question):
    (result,) = await ann.recall(question, datasets=["ann"])
    # (a question about now reads only periods up to now: this one guards that)
    assert result.metadata["temporal"]["period"] is None, result.metadata["temporal"]
