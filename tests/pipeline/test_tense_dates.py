"""A question about an explicit past date ("on 6 March 2023", "in February 2023", "on
2023-03-06") is answered from what held on that date, with or without ``as_of`` (then
among what was said by ``as_of``), and whatever narrows the recall."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType
from recall_engine.core.facts import Fact
from recall_engine.llm.answer_facts import fact_answer
from recall_engine.pipeline.tense_dates import asked_date
from recall_engine.read.periods import Interval

LYON_UNTIL_PARIS = [
    ("Where did Ann live on 6 March 2023?", "Lyon"),  # a day
    ("Where did Ann live on 2023-03-06?", "Lyon"),  # an ISO day
    ("Where did Ann live in February 2023?", "Lyon"),  # a month
    ("Where did Ann live on 20 March 2023?", "Paris"),  # a day after the move
    ("Where did Ann live in April 2023?", "Paris"),  # a month after the move
]


@pytest.fixture
async def ann(engine: RecallEngine) -> RecallEngine:
    said = [
        ("m1", "I live in Lyon.", datetime(2023, 1, 5)),
        ("m2", "I moved to Paris on 9 March 2023.", datetime(2023, 3, 9)),
    ]
    chat = Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in said],
        metadata={"team": "a"},
    )
    await engine.remember(chat, dataset_name="ann")
    return engine


def _head(text: str) -> str:
    """The first value an answer names."""
    return text.split(" ", 1)[0].strip(",;()")


@pytest.mark.parametrize("question, held", LYON_UNTIL_PARIS)
@pytest.mark.parametrize(
    "how",
    [
        {},
        {"query_type": SearchType.GRAPH_COMPLETION},
        {"metadata_filters": {"team": "a"}},
        {"as_of": "2024-01-01"},
        {"as_of": "2024-01-01", "metadata_filters": {"team": "a"}},
    ],
)
async def test_a_dated_question_answers_what_held_on_that_date(ann, question, held, how):
    (result,) = await ann.recall(question, datasets=["ann"], **how)
    assert _head(result.text) == held, result.text
    assert result.metadata["answer_type"] == "fact"
    other = {"Lyon", "Paris"} - {held}
    assert not any(o in result.text.split("(")[0] for o in other), result.text
    period = result.metadata["temporal"]["period"]
    assert period["start"] is not None and period["end"] is not None


@pytest.mark.parametrize("how", [{}, {"as_of": "2024-01-01"}])
@pytest.mark.parametrize(
    "question, when",
    [
        ("Where did Ann live on 1 January 2023?", "on 1 January 2023"),
        ("Where did Ann live in 2022?", "in 2022"),
    ],
)
async def test_a_date_before_any_fact_says_nothing_is_known_then(ann, question, when, how):
    (result,) = await ann.recall(question, datasets=["ann"], **how)
    assert result.text.startswith(f"No home is known {when}"), result.text
    assert "Paris" not in result.text


async def test_as_of_before_the_move_answers_what_was_known_then(ann):
    # As of 7 March the move to Paris was not said: Lyon is all that is known,
    # for a date before the move and for one after it.
    for question in ("Where did Ann live on 6 March 2023?", "Where did Ann live in April 2023?"):
        (result,) = await ann.recall(question, datasets=["ann"], as_of="2023-03-07")
        assert _head(result.text) == "Lyon", result.text
        assert "Paris" not in result.text


async def test_a_question_about_now_is_unchanged(ann):
    (result,) = await ann.recall("Where does Ann live?", datasets=["ann"])
    assert result.text.startswith("Paris")
    (then,) = await ann.recall("Where does Ann live?", datasets=["ann"], as_of="2023-03-07")
    assert then.text.startswith("Lyon")


@pytest.mark.parametrize(
    "question, start, end",
    [
        ("Where did Ann live on 6 March 2023?", datetime(2023, 3, 6), datetime(2023, 3, 7)),
        ("Where did Ann live in February 2023?", datetime(2023, 2, 1), datetime(2023, 3, 1)),
        ("Where did Ann live in 2022?", datetime(2022, 1, 1), datetime(2023, 1, 1)),
        ("Where did Ann live before 2023?", None, datetime(2023, 1, 1)),
    ],
)
def test_asked_date_reads_explicit_dates(question, start, end):
    found = asked_date(question, datetime(2024, 5, 1))
    assert found is not None
    assert found[0] == Interval(start, end)


@pytest.mark.parametrize(
    "question, start, end",
    [
        ("Where did Ann live last month?", datetime(2024, 4, 1), datetime(2024, 5, 1)),
        ("Where did Ann live on 6 March?", datetime(2024, 3, 6), datetime(2024, 3, 7)),
    ],
)
def test_asked_date_reads_relative_times_against_the_reference(question, start, end):
    # "last month" and a date without its year: of the time the question is asked
    found = asked_date(question, datetime(2024, 5, 1))
    assert found is not None and found.interval == Interval(start, end)


def test_asked_date_of_a_question_naming_no_time_is_none():
    assert asked_date("Where?", datetime(2024, 5, 1)) is None


def _fact(fid: str, obj: str, start: datetime, end: datetime | None) -> Fact:
    return Fact(
        id=fid, subject="Ann", subject_id="ann", predicate="lives_in", object=obj,
        object_id=obj, family="home", valid_from=start, valid_until=end, current=end is None,
    )  # fmt: skip


def test_fact_answer_as_of_with_a_period_answers_for_the_period():
    facts = [
        _fact("f1", "Lyon", datetime(2023, 1, 5), datetime(2023, 3, 9)),
        _fact("f2", "Paris", datetime(2023, 3, 9), None),
    ]
    day = Interval(datetime(2023, 3, 6), datetime(2023, 3, 7))
    answer = fact_answer(
        "Where Ann live?", facts, reading="as_of", as_of=datetime(2024, 1, 1), interval=day
    )
    assert answer is not None and answer.text.startswith("Lyon"), answer
    assert "as of 2024-01-01" in answer.text
    now = fact_answer("Where Ann live?", facts, reading="as_of", as_of=datetime(2024, 1, 1))
    assert now is not None and now.text.startswith("Paris")  # no period: as of then


def test_fact_answer_for_a_gap_names_what_came_before_and_after():
    facts = [
        _fact("f1", "Lyon", datetime(2022, 1, 1), datetime(2022, 6, 1)),
        _fact("f2", "Paris", datetime(2023, 3, 9), None),
    ]
    month = Interval(datetime(2022, 9, 1), datetime(2022, 10, 1))
    answer = fact_answer("Where Ann live?", facts, reading="past", interval=month)
    assert answer is not None
    assert answer.text == (
        "No home is known in September 2022; before that Lyon, until June 2022; "
        "after that Paris, from March 2023"
    )
