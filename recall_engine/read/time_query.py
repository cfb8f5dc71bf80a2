"""What time a query is about, found deterministically.

``query_interval`` returns the half-open interval [start, end) a query names:
a range ("between 1990 and 2000", "from May 2021 to June 2021"), an open end
("before 2020", "since March 2023", "after 2019"), or one period (a year, a
month, a date, "last week", "yesterday", "three days ago"). Single phrases are
found and resolved by ``recall_engine.graph.dates`` (the same code that dates
events at ingest), relative ones against the caller's reference time; a bare
year is read as that year. ``asks_for_time`` tells a question that wants a time
as its answer ("When did ...?", "What year ...?"), which names none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from recall_engine.graph.dates import ResolvedTime, find_date_phrases, resolve_date

_YEAR = re.compile(r"\b(1[6-9]\d\d|20\d\d)s?\b")
_RANGE = re.compile(
    r"\b(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|until|till|through)\s+(?P<b>.+?)(?=[?.!,;]|$)",
    re.IGNORECASE,
)
_OPEN = re.compile(
    r"\b(?P<op>before|until|till|prior\s+to|after|since|from)\s+(?P<x>.+?)(?=[?.!,;]|$)",
    re.IGNORECASE,
)
_ASKS = re.compile(
    r"\b(?:when|what\s+(?:year|month|day|date|time|week)|which\s+(?:year|month|day|date|week)"
    r"|how\s+long\s+(?:ago|since|before|after)|how\s+many\s+(?:years|months|weeks|days)\s+ago)\b",
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
        return (value.replace(day=1) + timedelta(days=32)).replace(day=1)
    if time.granularity == "week":
        return value + timedelta(days=7)
    return value.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


def _resolve(text: str, now: datetime) -> ResolvedTime | None:
    """One time expression: a date phrase dates.py knows, else a bare year (or decade)."""
    for _, _, phrase in find_date_phrases(text):
        resolved = resolve_date(phrase, now)
        if resolved is not None:
            return resolved
    match = _YEAR.search(text)
    if match is None:
        return None
    return ResolvedTime(datetime(int(match.group(1)), 1, 1), "year")


def _decade(text: str) -> Interval | None:
    match = re.search(r"\b(1[6-9]\d0|20\d0)s\b", text)
    if match is None:
        return None
    year = int(match.group(1))
    return Interval(datetime(year, 1, 1), datetime(year + 10, 1, 1), match.group(0))


def query_interval(query: str, now: datetime) -> Interval | None:
    """The interval ``query`` names, relative phrases resolved against ``now``; None if none."""
    for match in _RANGE.finditer(query):
        first, last = _resolve(match.group("a"), now), _resolve(match.group("b"), now)
        if first is not None and last is not None:
            start, end = min(first.value, last.value), max(_period_end(first), _period_end(last))
            return Interval(start, end, match.group(0))
    for match in _OPEN.finditer(query):
        point = _resolve(match.group("x"), now)
        if point is None:
            continue
        if match.group("op").lower() in ("after", "since", "from"):
            start = point.value if match.group("op").lower() != "after" else _period_end(point)
            return Interval(start, max(now, start + timedelta(days=1)), match.group(0))
        return Interval(EARLIEST, point.value, match.group(0))
    decade = _decade(query)
    if decade is not None:
        return decade
    for _, _, phrase in find_date_phrases(query):
        resolved = resolve_date(phrase, now)
        if resolved is not None:
            return Interval(resolved.value, _period_end(resolved), phrase)
    year = _YEAR.search(query)
    if year is not None:
        value = int(year.group(1))
        return Interval(datetime(value, 1, 1), datetime(value + 1, 1, 1), year.group(0))
    return None


def asks_for_time(query: str) -> bool:
    """True when the question wants a time as its answer ("When ...?", "What year ...?")."""
    return _ASKS.search(query) is not None
