"""Date phrases found and resolved against the chunk's time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from recall_engine.graph.dates import find_date_phrases, resolve_date

BASE = datetime(2023, 5, 8, 13, 56)  # a Monday


@pytest.mark.parametrize(
    ("phrase", "expected", "granularity"),
    [
        ("yesterday", "2023-05-07", "day"),
        ("two days ago", "2023-05-06", "day"),
        ("last week", "2023-05-01", "week"),
        ("in 2023", "2023-01-01", "year"),
        ("May 2021", "2021-05-01", "month"),
        ("last Friday", "2023-05-05", "day"),
        ("last weekend", "2023-05-06", "day"),
        ("a few weeks ago", "2023-04-17", "week"),
        ("next month", "2023-06-01", "month"),
        ("7th of May, 2022", "2022-05-07", "day"),
        ("1:56 pm on 8 May, 2023", "2023-05-08", "day"),
        ("2022-03-04", "2022-03-04", "day"),
    ],
)
def test_resolves_against_the_base(phrase: str, expected: str, granularity: str) -> None:
    resolved = resolve_date(phrase, BASE)
    assert resolved is not None
    assert resolved.value.date().isoformat() == expected
    assert resolved.granularity == granularity


def test_yesterday_from_a_message_time() -> None:
    resolved = resolve_date("yesterday", datetime(2023, 5, 8, 13, 56))
    assert resolved is not None and resolved.value == datetime(2023, 5, 7)
    assert resolved.label() == "2023-05-07"


def test_clock_time_is_kept() -> None:
    resolved = resolve_date("yesterday at 5 pm", BASE)
    assert resolved is not None and resolved.value == datetime(2023, 5, 7, 17, 0)


def test_future_preference_for_plans() -> None:
    past, future = resolve_date("Saturday", BASE), resolve_date("Saturday", BASE, prefer="future")
    assert past and future and past.value.day == 6 and future.value.day == 13


def test_aware_base_keeps_its_zone() -> None:
    resolved = resolve_date("yesterday", BASE.replace(tzinfo=UTC))
    assert resolved is not None and resolved.value == datetime(2023, 5, 7, tzinfo=UTC)


def test_without_a_base_only_years_resolve() -> None:
    assert resolve_date("yesterday", None) is None  # never the wall clock
    assert resolve_date("May 7", None) is None
    resolved = resolve_date("in 1843", None)
    assert resolved is not None and resolved.value == datetime(1843, 1, 1)


@pytest.mark.parametrize("phrase", ["", "last summer", "x" * 500, "🙂"])
def test_unresolvable_is_none(phrase: str) -> None:
    assert resolve_date(phrase, BASE) is None


def test_finds_phrases_not_verbs() -> None:
    text = "I may go. We met in May 2021 and again last week, 3 days ago, on Friday, in 2019."
    found = [p for _, _, p in find_date_phrases(text)]
    assert found == ["May 2021", "last week", "3 days ago", "on Friday", "in 2019"]
    assert find_date_phrases("nothing here") == []
