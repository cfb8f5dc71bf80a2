"""Find date phrases in English text and resolve them against a base time.

Parsing is ``dateparser``'s; this module only decides which phrases to hand it,
because ``dateparser`` is slow on whole sentences (milliseconds) and fast on a
short phrase behind a cache. A phrase is resolved against the chunk's timestamp
(message time or document date); without one, only phrases that name a year are
resolved, so that nothing ever depends on the wall clock.

Resolved values are normalised to the start of their period: "in 2023" ->
2023-01-01, "May 2021" -> 2021-05-01, "last week" -> that week's Monday,
"yesterday" -> that day at 00:00 (kept to the minute when a clock time is given).
"N units ago" keeps the shifted day: "two years ago" from 2023-05-08 -> 2021-05-08.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Literal

import regex
from dateparser.date import DateDataParser

Granularity = Literal["minute", "day", "week", "month", "year"]

MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
"""A month's name or its abbreviation, case-sensitive: "May" the month, not "may"."""
_WEEKDAY = r"(?i:(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
_YEAR = r"(?:1[6-9]\d\d|20\d\d)"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_CLOCK = r"(?i:\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.))"
_COUNT = (
    r"(?i:\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:a\s+)?few|(?:a\s+)?couple(?:\s+of)?|several)"
)
_UNIT = r"(?i:(?:day|week|month|year|decade)s?)"
_AT_CLOCK = rf"(?:\s+at\s+{_CLOCK})?"

# Months are matched case-sensitively ("May" the month, not "may" the verb); the
# relative words are not. Longer alternatives come first so they win.
_PHRASES = [
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?",
    r"\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b",
    rf"(?:{_CLOCK}\s+on\s+)?{_DAY}\s+(?:of\s+)?{MONTH}(?:,?\s+{_YEAR}(?![-/]\d))?{_AT_CLOCK}",
    rf"(?:{_CLOCK}\s+on\s+)?{MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}(?![-/]\d))?{_AT_CLOCK}",
    rf"{MONTH}\s+{_YEAR}(?![-/]\d)",
    rf"(?i:in|last|next|this|early|late|mid|since|until|by)[\s-]+{MONTH}(?!\s*\d)",
    r"(?i:(?:the\s+)?day\s+before\s+yesterday|yesterday|today|tonight|tomorrow|last\s+night"
    r"|this\s+(?:morning|afternoon|evening))" + _AT_CLOCK,
    rf"(?i:(?:last|next|this|past)\s+(?:week(?:end)?|month|year|summer|winter|spring|fall"
    rf"|autumn)|(?:last|next|this)\s+{_WEEKDAY})",
    rf"{_COUNT}\s+{_UNIT}\s+(?i:ago)",
    rf"(?i:on\s+){_WEEKDAY}{_AT_CLOCK}",
    rf"(?i:in|since|during|until|from|around|circa|back\s+in|early|late)\s+{_YEAR}\b",
]
# The stdlib engine runs this alternation faster than ``regex``; the trigger skips
# the four chunks in five that cannot hold a date phrase at all.
DATE_PHRASE = re.compile(r"\b(?:" + "|".join(_PHRASES) + r")\b")
_TRIGGER = re.compile(
    r"\d|(?i:yesterday|today|tonight|tomorrow|last|next|this|past|ago|day)"
    r"|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
)

# Phrases dateparser does not know, rewritten to ones it does (data, not logic).
_REWRITES: tuple[tuple[regex.Pattern[str], str], ...] = tuple(
    (regex.compile(pattern, regex.IGNORECASE), replacement)
    for pattern, replacement in (
        (r"^(?:in|on|since|during|until|from|around|circa|back\s+in|by|early|late|mid)[\s-]+", ""),
        (r"\blast\s+weekend\b", "last saturday"),
        (r"\bthis\s+weekend\b", "saturday"),
        (r"\bnext\s+weekend\b", "next saturday"),
        (r"\bpast\s+", "last "),
        (r"\b(?:a\s+)?couple(?:\s+of)?\b", "2"),
        (r"\b(?:a\s+)?few\b|\bseveral\b", "3"),
        (r"\bdecades?\s+ago\b", "10 years ago"),
    )
)
_CLOCK_CUE = regex.compile(
    r"\d:\d\d|\d\s*(?:am|pm|a\.m\.|p\.m\.)|night|morning|afternoon|evening", regex.I
)
_AGO = regex.compile(r"\bago\b", regex.IGNORECASE)
_HAS_YEAR = regex.compile(r"\b(?:1[6-9]\d\d|20\d\d)\b|\d{1,2}/\d{1,2}/\d{2}")
_PERIODS: dict[str, Granularity] = {
    "time": "minute",
    "day": "day",
    "week": "week",
    "month": "month",
    "year": "year",
}


@dataclass(frozen=True, slots=True)
class ResolvedTime:
    """A date phrase resolved: the start of its period and how precise it is."""

    value: datetime
    granularity: Granularity

    def label(self) -> str:
        """An ISO-style name at the phrase's precision: 2023, 2023-05, 2023-W18, 2023-05-07."""
        v = self.value
        if self.granularity == "year":
            return f"{v.year:04d}"
        if self.granularity == "month":
            return f"{v.year:04d}-{v.month:02d}"
        if self.granularity == "week":
            iso = v.isocalendar()
            return f"{iso.year:04d}-W{iso.week:02d}"
        return v.date().isoformat()

    def end(self) -> datetime:
        """The end of the phrase's period (exclusive): the next year, month, week or day."""
        v = self.value
        if self.granularity == "year":  # "two years ago" keeps its day: 29 February too
            return v.replace(year=v.year + 1, day=min(v.day, 28 if v.month == 2 else 31))
        if self.granularity == "month":
            return v.replace(year=v.year + v.month // 12, month=v.month % 12 + 1, day=1)
        day = v.replace(hour=0, minute=0, second=0, microsecond=0)
        return day + timedelta(days=7 if self.granularity == "week" else 1)


def find_date_phrases(text: str) -> list[tuple[int, int, str]]:
    """Every candidate date phrase as ``(start, end, phrase)``, left to right."""
    if not _TRIGGER.search(text):
        return []
    return [(m.start(), m.end(), m.group()) for m in DATE_PHRASE.finditer(text)]


def resolve_date(
    phrase: str, base: datetime | None, *, prefer: Literal["past", "future"] = "past"
) -> ResolvedTime | None:
    """Resolve one date phrase against ``base`` (the chunk's time).

    ``prefer`` settles phrases like "Friday" or "May": the past one by default,
    the coming one in a sentence about plans. Returns None when the phrase cannot
    be resolved, or needs a base and none is given. Never raises.
    """
    text = " ".join(phrase.split())
    if not text or len(text) > 80:
        return None
    if base is None and not _HAS_YEAR.search(text):
        return None
    tz = base.tzinfo if base is not None else None
    naive_base = base.replace(tzinfo=None) if base is not None else None
    resolved = _resolve_cached(text.lower(), naive_base, prefer)
    if resolved is None or tz is None:
        return resolved
    return ResolvedTime(resolved.value.replace(tzinfo=tz), resolved.granularity)


@lru_cache(maxsize=8192)
def _resolve_cached(text: str, base: datetime | None, prefer: str) -> ResolvedTime | None:
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    text = text.strip()
    if not text:
        return None
    # A year-only phrase without a base still needs some base; any fixed one gives
    # the same answer, and a fixed one keeps the result off the wall clock.
    try:
        data = _parser(base or datetime(2000, 1, 1), prefer).get_date_data(text)
    except Exception:  # dateparser raises assorted errors on odd input; a miss is fine
        return None
    if data.date_obj is None:
        return None
    granularity = _PERIODS.get(data.period or "day", "day")
    return ResolvedTime(
        _truncate(data.date_obj.replace(tzinfo=None), granularity, text), granularity
    )


def _truncate(value: datetime, granularity: Granularity, text: str) -> datetime:
    if _AGO.search(text):  # "two years ago": about that day, not that year's start
        return value.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity == "year":
        return datetime(value.year, 1, 1)
    if granularity == "month":
        return datetime(value.year, value.month, 1)
    day = value.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity == "week":
        return day - timedelta(days=day.weekday())
    if _CLOCK_CUE.search(text):
        return value.replace(second=0, microsecond=0)
    return day


@lru_cache(maxsize=256)
def _parser(base: datetime, prefer: str) -> DateDataParser:
    # One parser per (base, preference): RELATIVE_BASE is a parser setting, and a
    # conversation session shares one base across all its turns.
    return DateDataParser(
        languages=["en"],
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": prefer,
            "RETURN_AS_TIMEZONE_AWARE": False,
            "STRICT_PARSING": False,
        },
    )
