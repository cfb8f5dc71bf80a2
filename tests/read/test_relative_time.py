"""Relative time phrases as calendar periods, at the edges of months, years and seasons."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_engine.read.relative_time import add_months, relative_period


def _dates(phrase: str, now: datetime) -> tuple[str, str]:
    period = relative_period(phrase, now)
    assert period is not None, phrase
    return period.start.date().isoformat(), period.end.date().isoformat()


@pytest.mark.parametrize(
    ("phrase", "now", "start", "end"),
    [
        # "last March" in March is a year back; before March, last year's
        ("last March", datetime(2023, 3, 15), "2022-03-01", "2022-04-01"),
        ("last March", datetime(2023, 2, 1), "2022-03-01", "2022-04-01"),
        ("last March", datetime(2023, 4, 1), "2023-03-01", "2023-04-01"),
        ("this March", datetime(2023, 1, 5), "2023-03-01", "2023-04-01"),
        ("next March", datetime(2023, 3, 5), "2024-03-01", "2024-04-01"),
        ("last December", datetime(2023, 1, 5), "2022-12-01", "2023-01-01"),
        # seasons (northern, meteorological); winter starts the December before
        ("last winter", datetime(2023, 5, 10), "2022-12-01", "2023-03-01"),
        ("last winter", datetime(2023, 1, 10), "2021-12-01", "2022-03-01"),
        ("this winter", datetime(2023, 1, 10), "2022-12-01", "2023-03-01"),
        ("next summer", datetime(2023, 7, 1), "2024-06-01", "2024-09-01"),
        ("last fall", datetime(2023, 10, 1), "2022-09-01", "2022-12-01"),
        # calendar weeks start on Monday; months and years roll over
        ("last week", datetime(2023, 1, 2), "2022-12-26", "2023-01-02"),
        ("last month", datetime(2023, 1, 31), "2022-12-01", "2023-01-01"),
        ("next month", datetime(2023, 12, 31), "2024-01-01", "2024-02-01"),
        ("a month ago", datetime(2023, 3, 31), "2023-02-01", "2023-03-01"),
        ("a year ago", datetime(2024, 2, 29), "2023-01-01", "2024-01-01"),
        ("two decades ago", datetime(2023, 5, 10), "2003-01-01", "2004-01-01"),
        ("3 days ago", datetime(2023, 3, 1, 8), "2023-02-26", "2023-02-27"),
        # rolling windows run to the end of the reference day
        ("in the last 12 months", datetime(2024, 2, 29, 9), "2023-02-28", "2024-03-01"),
        ("over the last couple of weeks", datetime(2023, 5, 10), "2023-04-26", "2023-05-11"),
        ("the past week", datetime(2023, 5, 10), "2023-05-03", "2023-05-11"),
        ("in the last few days", datetime(2023, 5, 10), "2023-05-07", "2023-05-11"),
    ],
)
def test_relative_periods(phrase, now, start, end):
    assert _dates(phrase, now) == (start, end)


@pytest.mark.parametrize(
    "text", ["the last day of the trip", "at last, news", "the past is past", "last name"]
)
def test_not_a_relative_time(text):
    assert relative_period(text, datetime(2023, 5, 10)) is None


def test_add_months_clamps_the_day():
    assert add_months(datetime(2023, 1, 31), 1) == datetime(2023, 2, 28)
    assert add_months(datetime(2024, 3, 31), -1) == datetime(2024, 2, 29)
    assert add_months(datetime(2023, 12, 15), 1) == datetime(2024, 1, 15)
