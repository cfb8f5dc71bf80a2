"""Periods of a subject's history: the interval a past question asks about, and
rankings for now and for a period."""

from dataclasses import dataclass
from datetime import datetime

from recall_engine.read.periods import (
    Interval,
    asked_interval,
    change_points,
    period_first,
    period_index,
    present_first,
    until,
)

JAN23, MAR24, JUN24, SEP24 = (
    datetime(2023, 1, 5),
    datetime(2024, 3, 1),
    datetime(2024, 6, 1),
    datetime(2024, 9, 1),
)


@dataclass(frozen=True)
class F:
    object: str
    family: str | None
    valid_from: datetime | None
    valid_until: datetime | None = None
    chunk_id: str | None = None

    @property
    def current(self) -> bool:
        return self.valid_until is None


HOMES = [
    F("Lyon", "home", JAN23, MAR24, "c1"),
    F("Paris", "home", MAR24, SEP24, "c2"),
    F("Rome", "home", SEP24, None, "c3"),
    F("nurse", "job", JAN23, JUN24, "c4"),
    F("developer", "job", JUN24, None, "c5"),
    F("Tom", None, JAN23, None, "c6"),
]


def test_change_points_are_the_times_a_fact_was_replaced():
    assert change_points(HOMES) == [MAR24, JUN24, SEP24]
    assert period_index(JAN23, [MAR24, JUN24]) == 0
    assert period_index(MAR24, [MAR24, JUN24]) == 1
    assert period_index(None, [MAR24]) == 0


def test_asked_intervals():
    assert asked_interval("before", "paris", HOMES) == Interval(JAN23, MAR24)
    assert asked_interval("before", "rome", HOMES) == Interval(MAR24, SEP24)  # a middle period
    assert asked_interval("during", "paris", HOMES) == Interval(MAR24, SEP24)
    assert asked_interval("year", "2023", HOMES) == Interval(
        datetime(2023, 1, 1), datetime(2024, 1, 1)
    )
    assert asked_interval("first", None, HOMES, families={"home"}) == Interval(None, MAR24)
    assert asked_interval("previous", None, HOMES, families={"home"}) == Interval(MAR24, SEP24)
    assert asked_interval("previous", None, HOMES, families={"job"}) == Interval(JAN23, JUN24)
    assert asked_interval("before", "berlin", HOMES) is None
    assert asked_interval("previous", None, [HOMES[-1]]) is None


def test_interval_holds_half_open():
    span = Interval(JAN23, MAR24)
    assert span.holds(JAN23) and not span.holds(MAR24) and not span.holds(None)
    assert Interval(None, MAR24).holds(datetime(1990, 1, 1))


def test_period_first_keeps_each_side_in_order():
    ranked = [("a", 1.0), ("b", 0.9), ("c", 0.8), ("d", 0.1)]
    out = period_first(ranked, lambda item: item in {"c", "d"})
    assert [x for x, _ in out] == ["c", "d", "a", "b"]


def test_present_first_later_period_of_the_same_aspect_wins():
    # old neighbour (period 0), new neighbour (period 1), an unrelated old item
    ranked = [("old-neighbour", 1.0), ("book", 0.95), ("new-neighbour", 0.9)]
    words = {
        "old-neighbour": {"neighbour", "ann"},
        "new-neighbour": {"neighbour", "ann"},
        "book": {"book", "ann"},
    }
    period = {"old-neighbour": 0, "new-neighbour": 1, "book": 0}
    out = present_first(
        ranked,
        period_of=period.__getitem__,
        aspects=lambda x: frozenset(words[x]),
        replaced=lambda x: False,
    )
    # "ann" is in every item, so it tells no aspect apart: the book is another aspect
    assert [(x, old) for x, _, old in out] == [
        ("new-neighbour", False),
        ("old-neighbour", True),
        ("book", False),
    ]


def test_present_first_puts_replaced_facts_last():
    ranked = [("lyon", 1.0), ("paris", 0.8), ("noise", 0.01)]
    out = present_first(
        ranked,
        period_of=lambda x: 0,
        aspects=lambda x: frozenset(),
        replaced=lambda x: x == "lyon",
    )
    assert [(x, old) for x, _, old in out] == [
        ("paris", False),
        ("noise", False),
        ("lyon", True),
    ]


def test_until_drops_what_was_stated_later():
    times = {"a": JAN23, "b": JUN24, "c": None}
    assert until(["a", "b", "c"], MAR24, times.__getitem__) == ["a", "c"]
