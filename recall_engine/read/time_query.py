"""What time a query is about, found deterministically.

``query_interval`` returns the half-open interval [start, end) a query names:
a range ("between 1990 and 2000", "from March to May"), an open end ("before
2020", "since January", "after last summer"), a rolling window ("in the last
12 months", "over the past two weeks"), or one period (a year, a month, a date,
"last week", "last March", "this year", "two weeks ago", "yesterday").
Relative phrases are resolved against the caller's reference time as calendar
periods by ``recall_engine.read.relative_time``; absolute dates by
``recall_engine.graph.dates`` (the dateparser code that dates events at
ingest); a bare year is read as that year where the words make it one (a word
before it: "in 2019", "during 2021", "the year 2019", "summer 2021"; or a side of a
range or an open end: "before 2020"), not as any four-digit number ("Is room 2024
free?", "from room 2024 to the lab"); a bare month name ("since January") is read
as its latest occurrence up to the reference month. Open ends and
rolling windows run to the end of the reference day, so data dated at the
reference time itself is inside. ``asks_for_time`` tells a question that wants
a time as its answer ("When did ...?", "What year ...?"), which names none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from recall_engine.graph.dates import ResolvedTime, find_date_phrases, resolve_date
from recall_engine.read.relative_time import (
    Period,
    add_months,
    day_end,
    relative_period,
    rolling_window,
)

_YEAR = r"(1[6-9]\d\d|20\d\d)s?\b"
_CUED_YEAR = re.compile(
    r"\b(?:in|during|throughout|around|circa|by|of|year|early|mid|late|spring|summer"
    r"|autumn|fall|winter)[\s-]+(?:the\s+)?" + _YEAR,
    re.IGNORECASE,
)
"""A year the words before it make one ("in 2019", "the year 2019", "summer 2021")."""
_LEADING_YEAR = re.compile(r"^\s*(?:the\s+)?(?:year\s+)?" + _YEAR, re.IGNORECASE)
"""A year that opens the words after a range's or an open end's cue ("before 2020")."""
_RANGE = re.compile(
    r"\b(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|until|till|through)\s+(?P<b>.+?)(?=[?.!,;]|$)",
    re.IGNORECASE,
)
_OPEN = re.compile(
    r"\b(?P<op>before|until|till|prior\s+to|after|since|from)\s+(?P<x>.+?)(?=[?.!,;]|$)",
    re.IGNORECASE,
)
# "when" asks for a time when it opens the question or a clause asking one ("when did
# she move"); "who was her neighbour when she lived in Lyon" names a period instead.
_ASKS = re.compile(
    r"(?:^\s*when\b|\bwhen\s+(?:did|does|do|was|were|is|are|will|would|has|have|had|can|could)\b"
    r"|\b(?:what\s+(?:year|month|day|date|time|week)|which\s+(?:year|month|day|date|week)"
    r"|how\s+long\s+(?:ago|since|before|after)|how\s+many\s+(?:years|months|weeks|days)\s+ago)\b)",
    re.IGNORECASE,
)
EARLIEST = datetime(1, 1, 1)


@dataclass(frozen=True)
class Interval:
    """[start, end) and the words of the query it came from."""

    start: datetime
    end: datetime
    phrase: str

    def label(self) -> str:
        return f"[{self.start.isoformat()}, {self.end.isoformat()})"


def _period_end(time: ResolvedTime) -> datetime:
    value = time.value
    if time.granularity == "year":
        return value.replace(year=value.year + 1)
    if time.granularity == "month":
        return add_months(value.replace(day=1), 1)
    if time.granularity == "week":
        return value + timedelta(days=7)
    return value.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


_BARE_MONTH = re.compile(
    r"\b(?:Jan(?:uary)?|Feb(?:ruary)?|March|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b"
)
# "the previous month" is the calendar month before, like "last month".
_PREVIOUS = re.compile(r"\b(?:the\s+)?(?:previous|preceding)\s+(?=week|month|year)", re.I)


def _resolve(text: str, now: datetime) -> Period | None:
    """One time expression as a period: a relative phrase, a date phrase dates.py
    knows, a bare month name (capitalised: "May" the month, not "may"), or a year."""
    relative = relative_period(text, now)
    if relative is not None:
        return relative
    for _, _, phrase in find_date_phrases(text):
        resolved = resolve_date(phrase, now)
        if resolved is not None:
            return _period(resolved, phrase)
    month = _BARE_MONTH.search(text)
    if month is not None:
        resolved = resolve_date(month.group(0), now)
        if resolved is not None:
            return _period(resolved, month.group(0))
    match = _LEADING_YEAR.match(text)
    if match is None:
        return None
    return _period(ResolvedTime(datetime(int(match.group(1)), 1, 1), "year"), match.group(0))


def _period(time: ResolvedTime, phrase: str) -> Period:
    return Period(time.value, _period_end(time), phrase)


def _decade(text: str) -> Interval | None:
    match = re.search(r"\b(1[6-9]\d0|20\d0)s\b", text)
    if match is None:
        return None
    year = int(match.group(1))
    return Interval(datetime(year, 1, 1), datetime(year + 10, 1, 1), match.group(0))


def query_interval(query: str, now: datetime) -> Interval | None:
    """The interval ``query`` names, relative phrases resolved against ``now``; None if none."""
    query = _PREVIOUS.sub("last ", query)
    for match in _RANGE.finditer(query):
        first, last = _resolve(match.group("a"), now), _resolve(match.group("b"), now)
        if first is not None and last is not None:
            start, end = min(first.start, last.start), max(first.end, last.end)
            return Interval(start, end, match.group(0))
    window = rolling_window(query, now)
    if window is not None:
        return Interval(window.start, window.end, window.phrase)
    for match in _OPEN.finditer(query):
        point = _resolve(match.group("x"), now)
        if point is None:
            continue
        op = match.group("op").lower()
        if op in ("after", "since", "from"):
            start = point.end if op == "after" else point.start
            return Interval(start, max(day_end(now), start + timedelta(days=1)), match.group(0))
        return Interval(EARLIEST, point.start, match.group(0))
    decade = _decade(query)
    if decade is not None:
        return decade
    relative = relative_period(query, now)
    if relative is not None:
        return Interval(relative.start, relative.end, relative.phrase)
    for _, _, phrase in find_date_phrases(query):
        resolved = resolve_date(phrase, now)
        if resolved is not None:
            return Interval(resolved.value, _period_end(resolved), phrase)
    year = _CUED_YEAR.search(query)
    if year is not None:
        value = int(year.group(1))
        return Interval(datetime(value, 1, 1), datetime(value + 1, 1, 1), year.group(0))
    return None


def asks_for_time(query: str) -> bool:
    """True when the question wants a time as its answer ("When ...?", "What year ...?")."""
    return _ASKS.search(query) is not None
