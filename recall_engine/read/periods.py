"""Periods of a subject's history and ranking by them, shared by recall() and its answers.

A subject's facts of one family (where one lives, one's job, ...) hold one value at
a time; each statement that replaced a value opens a new period (a *change point*:
the replaced fact's ``valid_until``). What was said while a period lasted belongs
to it: the neighbour, the café, the weekend routine of the old city.

- A present question (``present_first``): a hit from an earlier period goes below
  every later one that answers the same aspect (shares a question term the others
  do not all share), and a hit stating only replaced facts goes below those that
  state current ones.
- A past question (``asked_interval`` then ``period_first``): the interval it asks
  about ("before Paris", "when I lived in Lyon", "in 2023", "first", "used to")
  ranks its hits first.
- ``as_of`` (``until``): hits stated after that time are dropped.

Facts are read through ``FactLike`` (``core.facts.Fact`` fits it), so ranking needs
only their family, object and validity.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from recall_engine.core.facts import is_multi_valued

T = TypeVar("T")


class FactLike(Protocol):
    """What ranking reads of a fact (``core.facts.Fact`` has it)."""

    @property
    def object(self) -> str: ...
    @property
    def family(self) -> str | None: ...
    @property
    def valid_from(self) -> datetime | None: ...
    @property
    def valid_until(self) -> datetime | None: ...
    @property
    def current(self) -> bool: ...
    @property
    def chunk_id(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Interval:
    """``[start, end)``; None on a side: open on that side."""

    start: datetime | None = None
    end: datetime | None = None

    def holds(self, when: datetime | None) -> bool:
        """Whether ``when`` lies inside (an unknown time never does)."""
        if when is None:
            return False
        if self.start is not None and when < self.start:
            return False
        return self.end is None or when < self.end

    def metadata(self) -> dict[str, str | None]:
        """The interval as ISO strings for ``metadata["temporal"]["period"]``."""
        return {
            "start": self.start.isoformat() if self.start else None,
            "end": self.end.isoformat() if self.end else None,
        }


def change_points(facts: Iterable[FactLike]) -> list[datetime]:
    """The times at which a fact was replaced, sorted, each once."""
    return sorted({f.valid_until for f in facts if f.family and f.valid_until is not None})


def period_index(when: datetime | None, points: Sequence[datetime]) -> int:
    """How many change points lie at or before ``when`` (an unknown time: 0)."""
    return 0 if when is None else bisect.bisect_right(points, when)


def _names(anchor: str, fact: FactLike) -> bool:
    value, wanted = fact.object.lower(), anchor.lower()
    return bool(value) and (wanted in value or value in wanted)


def asked_interval(
    period: str | None,
    anchor: str | None,
    facts: Sequence[FactLike],
    *,
    families: set[str] | None = None,
) -> Interval | None:
    """The interval a past question asks about (see ``router.tense``'s periods), from
    the subject's ``facts``; ``families`` narrows "first" and "previous" to the
    aspects asked about. None when the facts do not tell it."""
    if period == "year" and anchor and anchor.isdigit():
        year = int(anchor)
        return Interval(datetime(year, 1, 1), datetime(year + 1, 1, 1))
    family_facts = [f for f in facts if f.family]
    if period in ("before", "during") and anchor:
        named = sorted(
            (f for f in family_facts if _names(anchor, f) and f.valid_from is not None),
            key=lambda f: f.valid_from or datetime.min,
        )
        if not named:
            return None
        fact = named[0]
        if period == "during":
            return Interval(fact.valid_from, fact.valid_until)
        began = fact.valid_from
        ended = [f for f in family_facts if f.family == fact.family and f.valid_until == began]
        starts = [f.valid_from for f in ended if f.valid_from is not None]
        return Interval(min(starts) if starts else None, began)
    aspect = [f for f in family_facts if families is None or f.family in families] or family_facts
    if period == "first" and aspect and all(is_multi_valued(f.family) for f in aspect):
        # several values at once (pets): the first is what held before the second came
        starts = sorted({f.valid_from for f in aspect if f.valid_from is not None})
        return Interval(None, starts[1]) if len(starts) > 1 else None
    replaced = [f for f in aspect if f.valid_until is not None]
    if not replaced:
        return None
    if period == "first":
        return Interval(None, min(f.valid_until for f in replaced if f.valid_until))
    if period == "previous":
        last = max(replaced, key=lambda f: f.valid_until or datetime.min)
        return Interval(last.valid_from, last.valid_until)
    return None


def period_first(
    ranked: Sequence[tuple[T, float]], in_period: Callable[[T], bool]
) -> list[tuple[T, float]]:
    """``ranked`` with the items ``in_period`` first, each side in its order."""
    inside = [r for r in ranked if in_period(r[0])]
    return [*inside, *(r for r in ranked if not in_period(r[0]))]


def present_first(
    ranked: Sequence[tuple[T, float]],
    *,
    period_of: Callable[[T], float],
    aspects: Callable[[T], frozenset[str]],
    replaced: Callable[[T], bool],
) -> list[tuple[T, float, bool]]:
    """``ranked`` (best first) ordered for a question about now, each item with
    whether it is *outdated* (it had to give way to another).

    An item goes below every item of a later period (``period_of``) that shares an
    aspect term with it (``aspects``: the question terms it holds, less those every
    item holds), which moves up into its place, and an item stating only replaced
    facts (``replaced``) goes below every other; otherwise items keep their order.
    """
    head = list(ranked)
    shared = frozenset.intersection(*(aspects(item) for item, _ in head)) if head else frozenset()
    terms = [aspects(item) - shared for item, _ in head]
    periods = [period_of(item) for item, _ in head]
    stale = [replaced(item) for item, _ in head]

    def after(i: int, j: int) -> bool:
        """Whether item i must come after item j."""
        if stale[i] and not stale[j]:
            return True
        if stale[j] and not stale[i]:
            return False
        return periods[j] > periods[i] and bool(terms[i] & terms[j])

    everyone = range(len(head))
    outdated = [any(after(i, j) for j in everyone if j != i) for i in everyone]
    placed: list[int] = []
    waiting = list(everyone)
    while waiting:
        # the first waiting item, or what must precede it, takes the next place
        pick = waiting[0]
        while (ahead := _blocker(pick, waiting, after)) is not None:
            pick = ahead
        waiting.remove(pick)
        placed.append(pick)
    return [(head[i][0], head[i][1], outdated[i]) for i in placed]


def _blocker(i: int, waiting: Sequence[int], after: Callable[[int, int], bool]) -> int | None:
    """The first waiting item that item ``i`` must come after, if any."""
    return next((j for j in waiting if j != i and after(i, j)), None)


def until(items: Sequence[T], as_of: datetime, time_of: Callable[[T], datetime | None]) -> list[T]:
    """``items`` stated at or before ``as_of`` (an item of unknown time is kept)."""
    return [item for item in items if (when := time_of(item)) is None or when <= as_of]
