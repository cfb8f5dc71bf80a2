"""What date or period a question names (``pipeline.tense_dates.asked_date``): a number
is a year only where the words say so; "since", "after", "between", "early" and
relative phrases each read the period they mean, against the time asked."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine.pipeline.tense_dates import CUES, asked_date, question_date
from recall_engine.read.periods import Interval

ASKED = datetime(2024, 5, 1)


@pytest.mark.parametrize(
    "question",
    [
        "What did Ann pay for the 1600 bike?",
        "Is room 2024 free?",
        "Where did Ann live in room 2024?",
        "Where did Ann live at 2023 Main Street?",
        "What did Ann buy for 2023 dollars?",
        "What did Ann take from room 2024 to the lab?",
        "What did Ann pay, between 2000 and 3000 dollars?",
        "What did Ann pay, from 2000 to 3000 dollars?",
        "May I ask where Ann lived?",
    ],
)
def test_a_number_or_a_month_word_is_no_date_unless_the_words_say_so(question):
    assert asked_date(question, ASKED) is None


# fmt: off
PERIODS = [
    # open at the end: from the date on
    ("Where has Ann lived since March 2023?", "2023-03-01", None, "since March 2023"),
    ("Where did Ann work since 2022?", "2022-01-01", None, "since 2022"),
    ("Where did Ann live after March 2023?", "2023-04-01", None, "after March 2023"),
    ("Where did Ann live since early 2023?", "2023-01-01", None, "since early 2023"),
    # open at the start: up to the date
    ("Where did Ann live before 2023?", None, "2023-01-01", "before 2023"),
    ("Where did Ann live prior to May 2022?", None, "2022-05-01", "prior to May 2022"),
    # ranges; a first date without a year takes the second's
    ("Where did Ann live between 2021 and 2022?", "2021-01-01", "2023-01-01", "between 2021 and 2022"),
    ("Where did Ann live from January to March 2023?", "2023-01-01", "2023-04-01", "from January to March 2023"),
    ("Where did Ann live from December to March 2023?", "2022-12-01", "2023-04-01", "from December to March 2023"),
    # a year named as one
    ("Where did Ann live in the year 2022?", "2022-01-01", "2023-01-01", "in the year 2022"),
    ("Where did Ann live back in 2021?", "2021-01-01", "2022-01-01", "back in 2021"),
    ("What did Ann do in the 1990s?", "1990-01-01", "2000-01-01", "in the 1990s"),
    # a third of a period
    ("Where did Ann live in early 2023?", "2023-01-01", "2023-05-01", "in early 2023"),
    ("Where did Ann live in mid-2023?", "2023-05-01", "2023-09-01", "in mid-2023"),
    ("Where did Ann live in late 2023?", "2023-09-01", "2024-01-01", "in late 2023"),
    ("What was Ann's job at the end of 2022?", "2022-09-01", "2023-01-01", "at the end of 2022"),
    ("Where did Ann live in late March 2023?", "2023-03-21", "2023-04-01", "in late March 2023"),
    # relative to the time asked (1 May 2024)
    ("Where did Ann live last summer?", "2023-06-01", "2023-09-01", "last summer"),
    ("Where did Ann live two years ago?", "2022-01-01", "2023-01-01", "two years ago"),
    ("What did Ann do since May?", "2024-05-01", None, "since May"),
    # the first time named is read; a number elsewhere is none
    ("Where did Ann live in 2023 when she was 1200 km away?", "2023-01-01", "2024-01-01", "in 2023"),
]
# fmt: on


def _at(day: str | None) -> datetime | None:
    return None if day is None else datetime.fromisoformat(day)


@pytest.mark.parametrize("question, start, end, words", PERIODS)
def test_the_words_around_a_date_say_which_period_it_is(question, start, end, words):
    found = asked_date(question, ASKED)
    assert found is not None, question
    assert found.interval == Interval(_at(start), _at(end))
    assert found.words == words


@pytest.mark.parametrize("cue", CUES, ids=lambda c: c.id)
def test_every_cue_reads_its_examples(cue):
    assert cue.examples
    for example in cue.examples:
        found = asked_date(example, ASKED)
        assert found is not None, example
        assert found.words.lower() in example.lower()


async def test_a_relative_phrase_is_read_against_as_of_else_the_latest_message():
    question = "Where did Ann live last summer?"

    async def latest() -> datetime:
        return datetime(2021, 2, 10)

    async def never() -> datetime:
        raise AssertionError("an explicit date or as_of needs no read")

    as_of = await question_date(question, as_of=datetime(2024, 6, 15), latest=never)
    assert as_of is not None and as_of.interval == Interval(
        datetime(2023, 6, 1), datetime(2023, 9, 1)
    )
    chat = await question_date(question, as_of=None, latest=latest)  # the chat ended in 2021
    assert chat is not None and chat.interval == Interval(
        datetime(2020, 6, 1), datetime(2020, 9, 1)
    )
    explicit = await question_date("Where did Ann live in 2022?", as_of=None, latest=never)
    assert explicit is not None and explicit.interval.start == datetime(2022, 1, 1)
