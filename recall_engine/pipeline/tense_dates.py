"""The date or period a question names, as the tense stage reads it.

"Where did Ann live on 6 March 2023?" asks about that day, "... since March 2023?"
about the time from then on (a period open at its end), "... between 2021 and 2022?"
about both years, "... in late 2022?" about its last third, "... last summer?" about
the summer before the time the question is asked. The tense stage answers it from
what held then (``pipeline.tense``).

How it is read:

- the dates themselves are found and resolved by the code that dates what is
  remembered: ``graph.dates`` (``dateparser``) for calendar phrases ("6 March 2023",
  "March 2023", "2023-03-06", "since March", "yesterday"), ``read.relative_time`` for
  periods relative to the reference time ("last summer", "two years ago", "the past
  year"); a capitalised month name and a decade ("the 1990s") are read here;
- a bare four-digit number is a year only where the words say so: a cue before it
  (``CUES``: "in 2022", "before 2023", "the year 2022", "early 2023") or a range
  around it ("between 2021 and 2022"); "the 1200 bike" and "room 2024" name no time;
- the cue before a date says which period it means (``CUES``, rules as data with
  examples): the date's own ("in", "during"), from it on ("since", "after", "from"),
  up to it ("before", "until"), or a third of it ("early", "mid", "late");
- a range ("between X and Y", "from X to Y") runs from the first to the end of the
  second; a first date without a year takes the second's ("from January to March 2023").

The first time the question names is read. Relative phrases resolve against the time
the question is asked (``question_date``): ``as_of``, else now or the latest message
in scope when that is earlier, as the TEMPORAL retriever reads them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, NamedTuple

from recall_engine.graph.dates import MONTH, find_date_phrases, resolve_date
from recall_engine.read.periods import Interval
from recall_engine.read.relative_time import add_months, ago_phrase, calendar_phrase, rolling_window

How = Literal["within", "from", "after", "before", "early", "mid", "late"]


@dataclass(frozen=True, slots=True)
class DateCue:
    """Words just before a date that say which period the question means by it.

    ``how``: "within" the date's own period; "from" its start on, "after" its end on
    (open at the end); "before" up to its start (open at the start); "early", "mid",
    "late" its first, middle or last third. ``names_year``: whether the words make a
    bare four-digit number after them a year. ``examples``: questions it reads.
    """

    id: str
    words: str
    how: How
    examples: tuple[str, ...]
    names_year: bool = True


CUES: tuple[DateCue, ...] = (
    DateCue(
        "in",
        r"in|during|throughout|around|circa|back\s+in|(?:the\s+)?year",
        "within",
        ("Where did Ann live in 2022?", "What was Ann's job during 2021?"),
    ),
    DateCue("on", r"on|at", "within", ("Where did Ann live on 6 March 2023?",), names_year=False),
    DateCue(
        "since",
        r"since|from",
        "from",
        ("Where has Ann lived since March 2023?", "Where did Ann work from 2021 on?"),
    ),
    DateCue("after", r"after", "after", ("Where did Ann live after March 2023?",)),
    DateCue(
        "before",
        r"before|prior\s+to|until|till",
        "before",
        ("Where did Ann live before 2023?", "What was Ann's job until 2022?"),
    ),
    DateCue(
        "early",
        r"early|(?:the\s+)?(?:start|beginning)\s+of",
        "early",
        ("Where did Ann live in early 2023?", "What was Ann's job at the start of 2022?"),
    ),
    DateCue("mid", r"mid|(?:the\s+)?middle\s+of", "mid", ("Where did Ann live in mid-2023?",)),
    DateCue(
        "late",
        r"late|(?:the\s+)?end\s+of",
        "late",
        ("Where did Ann live in late 2022?", "What was Ann's job at the end of 2022?"),
    ),
)
_RANGE_OPENS = re.compile(r"\b(?:between|from)\s+(?:the\s+)?$", re.IGNORECASE)
_RANGE_JOINS = re.compile(r"^\s*(?:and|to|until|till|through|-|–)\s*(?:the\s+)?", re.IGNORECASE)
_CUE_BEFORE = re.compile(
    r"\b(?:" + "|".join(f"(?P<{c.id}>{c.words})" for c in CUES) + r")[\s-]+(?:the\s+)?$",
    re.IGNORECASE,
)
_CUE_BY_ID = {c.id: c for c in CUES}
_LEAD = re.compile(
    r"(?:in|on|since|during|until|from|around|circa|back\s+in|by|early|late|mid)[\s-]+",
    re.IGNORECASE,
)
"""The words ``graph.dates`` keeps before a date ("since March"); read here as cues."""
_MONTH = re.compile(rf"\b{MONTH}(?!\w)")
_YEAR = re.compile(r"\b(?:1[6-9]\d\d|20\d\d)\b(?!['’]s\b)")
_DECADE = re.compile(r"\b(?:1[6-9]|20)\d0['’]?s\b")
_HAS_YEAR = re.compile(r"\b(?:1[6-9]\d\d|20\d\d)\b")
_ELSEWHEN = timedelta(days=400)
"""How far apart the two reference times are that tell an explicit date from a
relative one (``question_date``): a different year, month and weekday."""


class AskedDate(NamedTuple):
    """The period a question names (None on a side it leaves open) and its words."""

    interval: Interval
    words: str


@dataclass(frozen=True, slots=True)
class _Point:
    """A date the question names: where, its period, and whether the words around it
    must say it is one (a bare year or month name)."""

    start: int
    end: int
    period: tuple[datetime, datetime]
    needs_cue: bool = False


def asked_date(question: str, reference: datetime) -> AskedDate | None:
    """The first date or period ``question`` names, relative phrases resolved against
    ``reference``, and the words it was read from.

    Args:
        question: The question as asked.
        reference: The time it is asked at (naive UTC).

    Returns:
        The period (``Interval``, open on a side the question leaves open) and its
        words, or None when it names none.
    """
    points = _points(question, reference)
    for point in points:
        if not point.needs_cue or _cued(question, point, points):
            read = _expression(question, point, points)
            if read is not None:
                return read
    return None


async def question_date(
    question: str,
    *,
    as_of: datetime | None,
    latest: Callable[[], Awaitable[datetime | None]],
) -> AskedDate | None:
    """``asked_date`` against the time the question is asked: ``as_of`` when given;
    else now, or, for a relative phrase (one read otherwise against a time far from
    it), the latest message in scope when that is earlier, as the TEMPORAL retriever
    reads it ("last month" of a conversation: the month before its latest message).

    Args:
        question: The question as asked.
        as_of: The time the recall answers as of (naive UTC); None: now.
        latest: Reads the latest message time in scope (awaited only for a
            relative phrase without ``as_of``).

    Returns:
        What ``asked_date`` returns.
    """
    if as_of is not None:
        return asked_date(question, as_of)
    now = datetime.now(UTC).replace(tzinfo=None)
    read = asked_date(question, now)
    if read is None or asked_date(question, now - _ELSEWHEN) == read:
        return read
    last = await latest()
    return asked_date(question, last) if last is not None and last < now else read


def _points(question: str, reference: datetime) -> list[_Point]:
    """Every date the question may name, left to right; of overlapping ones the
    longest (a relative period before a calendar phrase of the same words)."""
    found: list[_Point] = []
    for relative in (rolling_window, ago_phrase, calendar_phrase):
        period = relative(question, reference)
        at = question.find(period.phrase) if period is not None else -1
        if period is not None and at >= 0:
            found.append(_Point(at, at + len(period.phrase), (period.start, period.end)))
    for start, end, phrase in find_date_phrases(question):
        resolved = resolve_date(phrase, reference)
        lead = _LEAD.match(phrase)
        if resolved is not None:
            begin = start + (lead.end() if lead else 0)
            found.append(_Point(begin, end, (resolved.value, resolved.end())))
    for match in _DECADE.finditer(question):
        first = int(match.group(0)[:4])
        found.append(_Point(*match.span(), (datetime(first, 1, 1), datetime(first + 10, 1, 1))))
    for match in _YEAR.finditer(question):
        year = int(match.group(0))
        span = (datetime(year, 1, 1), datetime(year + 1, 1, 1))
        found.append(_Point(*match.span(), span, needs_cue=True))
    for match in _MONTH.finditer(question):
        month = resolve_date(match.group(0), reference)
        if month is not None:
            found.append(_Point(*match.span(), (month.value, month.end()), needs_cue=True))
    found.sort(key=lambda p: (p.start, -(p.end - p.start)))
    kept: list[_Point] = []
    for point in found:
        if not kept or point.start >= kept[-1].end:
            kept.append(point)
    return kept


def _cues(question: str, point: _Point) -> tuple[list[DateCue], int]:
    """The cues just before ``point``, nearest first, and where the farthest begins."""
    left, cues = question[: point.start], list[DateCue]()
    while len(cues) < 3 and (match := _CUE_BEFORE.search(left)) is not None:
        cues.append(_CUE_BY_ID[next(k for k, v in match.groupdict().items() if v)])
        left = left[: match.start()]
    return cues, len(left)


def _range_of(question: str, point: _Point, points: list[_Point]) -> tuple[_Point, int] | None:
    """The second date of a range that ``point`` opens ("between X and Y", "from X
    to Y") and where the range's words begin; None when it opens none."""
    opens = _RANGE_OPENS.search(question[: point.start])
    join = _RANGE_JOINS.match(question[point.end :])
    if opens is None or join is None:
        return None
    second = next((p for p in points if p.start == point.end + join.end()), None)
    return None if second is None else (second, opens.start())


def _cued(question: str, point: _Point, points: list[_Point]) -> bool:
    """Whether the words around a bare year or month name say it is one: a cue
    that names a year before it, or a range it opens or closes."""
    cues, _ = _cues(question, point)
    if any(c.names_year for c in cues):
        return True
    for other in points:
        ranged = _range_of(question, other, points)
        if ranged is not None and point in (other, ranged[0]):
            return True
    return False


def _expression(question: str, point: _Point, points: list[_Point]) -> AskedDate | None:
    """The period the words around ``point`` make of it; None when they make it no
    date ("from 2000 to 3000 dollars")."""
    ranged = _range_of(question, point, points)
    if ranged is not None:
        second, begins = ranged
        first = point.period
        if not _HAS_YEAR.search(question[point.start : point.end]):
            first = _in_year_of(question[point.start : point.end], second) or first
        interval = Interval(min(first[0], second.period[0]), max(first[1], second.period[1]))
        return AskedDate(interval, question[begins : second.end])
    if _RANGE_OPENS.search(question[: point.start]) and _RANGE_JOINS.match(question[point.end :]):
        return None
    cues, begins = _cues(question, point)
    start: datetime | None = point.period[0]
    end: datetime | None = point.period[1]
    for cue in cues:  # the nearest first: "in early 2023" is early 2023, in it
        if start is not None and end is not None:
            start, end = _narrowed(start, end, cue.how)
    return AskedDate(Interval(start, end), question[begins : point.end].strip())


def _in_year_of(text: str, second: _Point) -> tuple[datetime, datetime] | None:
    """A range's first date read in its second's year ("January" of "from January to
    March 2023"), or the year before when that puts it after the second ("December"
    of "from December to March 2023")."""
    year = second.period[0].year
    for candidate in (year, year - 1):
        resolved = resolve_date(f"{text} {candidate}", None)
        if resolved is not None and resolved.value <= second.period[0]:
            return resolved.value, resolved.end()
    return None


def _narrowed(start: datetime, end: datetime, how: How) -> tuple[datetime | None, datetime | None]:
    """The period ``how`` makes of [start, end): itself, open on a side, or a third."""
    if how == "within":
        return start, end
    if how == "from":
        return start, None
    if how == "after":
        return end, None
    if how == "before":
        return None, start
    third = ("early", "mid", "late").index(how)
    months = (end.year - start.year) * 12 + end.month - start.month
    midnight = start.time() == end.time() == datetime.min.time()
    if midnight and start.day == end.day == 1 and months >= 3:  # "early 2023": January-April
        return add_months(start, months * third // 3), add_months(start, months * (third + 1) // 3)
    days = (end - start).days  # "late March 2023": 21-31 March
    lower = start + timedelta(days=days * third // 3)
    return lower, end if third == 2 else start + timedelta(days=days * (third + 1) // 3)
