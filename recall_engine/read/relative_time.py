"""Relative time phrases in a question, resolved against a reference time as periods.

A question's "last month" or "two weeks ago" means a stretch of time, not the
point a date parser returns, so these phrases are read here as half-open
periods [start, end):

- a rolling window, "(in) the last 12 months", "over the past two weeks",
  "the past year", "last 3 days": from that many units before the reference
  day to the end of the reference day;
- a calendar period named relative to the reference: "last/this/next
  week|month|year" (weeks start on Monday), "last March" (the latest March
  before the reference month), "this March", "next March", "last summer"
  (northern meteorological seasons: spring is March-May, summer June-August,
  autumn September-November, winter December-February), "earlier this year"
  (up to the end of the reference day);
- "N units ago": the calendar day, week, month or year that holds the
  reference time shifted back N units ("three months ago" in May is February).

Everything is plain calendar arithmetic on the reference time: deterministic,
no wall clock, no network. Absolute dates ("8 May 2023") are left to
``recall_engine.graph.dates`` (dateparser).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "few": 3,
    "a few": 3,
    "couple": 2,
    "a couple": 2,
    "couple of": 2,
    "a couple of": 2,
    "several": 3,
}
_COUNT = r"(?P<n>\d{1,3}|a\s+few|a\s+couple(?:\s+of)?|couple(?:\s+of)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)"  # noqa: E501
_UNIT = r"(?P<unit>day|week|month|year|decade)s?"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_WHICH = r"(?P<which>last|previous|this|current|next|coming)"

_ROLLING = re.compile(
    rf"\b(?:(?:in|over|during|within|for)\s+)?(?:(?P<the>the)\s+)?(?:last|past|previous|preceding)"
    rf"\s+(?:{_COUNT}\s+)?{_UNIT}\b(?!\s+of\b)",
    re.IGNORECASE,
)
_CALENDAR = re.compile(
    rf"\b(?P<earlier>earlier\s+)?{_WHICH}\s+(?:{_MONTH}|{_SEASON}|(?P<period>week|month|year))\b",
    re.IGNORECASE,
)
_AGO = re.compile(rf"\b{_COUNT}\s+{_UNIT}\s+ago\b", re.IGNORECASE)
# Season -> (first month, months long); winter starts in the December before.
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


@dataclass(frozen=True)
class Period:
    """[start, end) and the words it was read from."""

    start: datetime
    end: datetime
    phrase: str


def day_start(value: datetime) -> datetime:
    return value.replace(hour=0, minute=0, second=0, microsecond=0)


def day_end(value: datetime) -> datetime:
    """The midnight after ``value``: a period "up to now" keeps all of today."""
    return day_start(value) + timedelta(days=1)


def add_months(value: datetime, months: int) -> datetime:
    """``value`` moved by whole months, the day clamped to the target month's length."""
    index = value.year * 12 + value.month - 1 + months
    year, month = divmod(index, 12)
    following = datetime(year + (month == 11), (month + 1) % 12 + 1, 1)
    last_day = (following - timedelta(days=1)).day
    return value.replace(year=year, month=month + 1, day=min(value.day, last_day))


def calendar_period(value: datetime, unit: str) -> tuple[datetime, datetime]:
    """The calendar day, week (from Monday), month or year that holds ``value``."""
    day = day_start(value)
    if unit == "day":
        return day, day + timedelta(days=1)
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=7)
    if unit == "month":
        first = day.replace(day=1)
        return first, add_months(first, 1)
    first = day.replace(month=1, day=1)
    return first, first.replace(year=first.year + 1)


def _shift(value: datetime, n: int, unit: str) -> datetime:
    if unit == "day":
        return value - timedelta(days=n)
    if unit == "week":
        return value - timedelta(weeks=n)
    months = {"month": 1, "year": 12, "decade": 120}[unit]
    return add_months(value, -n * months)


def _count(match: re.Match[str]) -> int:
    raw = match.group("n")
    if raw is None:
        return 1
    raw = " ".join(raw.lower().split())
    return int(raw) if raw.isdigit() else _COUNTS[raw]


def rolling_window(text: str, now: datetime) -> Period | None:
    """ "(in) the last 12 months", "the past week", "last 3 days": a window up to today.

    Without a count the phrase needs "the" ("the past year"); plain "last year"
    is the calendar year before (see ``calendar_phrase``)."""
    for match in _ROLLING.finditer(text):
        if match.group("n") is None and match.group("the") is None:
            continue
        n, unit = _count(match), match.group("unit").lower()
        if n <= 0:
            continue
        start = day_start(_shift(now, n, unit))
        return Period(start, day_end(now), match.group(0))
    return None


def _month_period(which: str, month: int, now: datetime) -> tuple[datetime, datetime]:
    year = now.year
    if which in ("last", "previous"):
        year -= month >= now.month  # the latest one that ended before this month
    elif which in ("next", "coming"):
        year += month <= now.month
    start = datetime(year, month, 1)
    return start, add_months(start, 1)


def _season_period(which: str, season: str, now: datetime) -> tuple[datetime, datetime]:
    first = _SEASONS[season]

    def instance(year: int) -> tuple[datetime, datetime]:
        start = datetime(year - (first == 12), first, 1)
        return start, add_months(start, 3)

    years = range(now.year - 2, now.year + 3)
    if which in ("last", "previous"):
        return max((instance(y) for y in years if instance(y)[1] <= now), key=lambda p: p[0])
    if which in ("next", "coming"):
        return min((instance(y) for y in years if instance(y)[0] > now), key=lambda p: p[0])
    for year in years:
        start, end = instance(year)
        if start <= now < end:
            return start, end
    return instance(now.year)


def calendar_phrase(text: str, now: datetime) -> Period | None:
    """ "last/this/next week|month|year", "last March", "this summer", "earlier this year"."""
    match = _CALENDAR.search(text)
    if match is None:
        return None
    which = match.group("which").lower()
    if match.group("month"):
        month = _MONTHS.index(match.group("month").lower()[:3]) + 1
        start, end = _month_period(which, month, now)
    elif match.group("season"):
        start, end = _season_period(which, match.group("season").lower(), now)
    else:
        unit = match.group("period").lower()
        step = {"last": -1, "previous": -1, "next": 1, "coming": 1}.get(which, 0)
        start, end = calendar_period(_shift(now, -step, unit), unit)
    if match.group("earlier") and which in ("this", "current"):
        end = min(end, day_end(now))
    return Period(start, end, match.group(0))


def ago_phrase(text: str, now: datetime) -> Period | None:
    """ "N units ago": the calendar period of that unit holding the shifted time."""
    match = _AGO.search(text)
    if match is None:
        return None
    n, unit = _count(match), match.group("unit").lower()
    if unit == "decade":
        n, unit = n * 10, "year"
    start, end = calendar_period(_shift(now, n, unit), unit)
    return Period(start, end, match.group(0))


def relative_period(text: str, now: datetime) -> Period | None:
    """The first relative phrase of ``text`` as a period, or None."""
    return rolling_window(text, now) or ago_phrase(text, now) or calendar_phrase(text, now)
