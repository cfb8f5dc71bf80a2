"""Offline answers from a subject's facts over time: what holds now, and since when.

"Where does Ann live now?" over the facts lives_in Lyon (2023, replaced 2024-03-01)
and moved_to Paris + lives_in Montmartre (2024-03-01) answers
"Paris (Montmartre), since March 2024; before that Lyon"; when every value of the
aspect ended and none followed ("I don't live in Lyon anymore"), it says so: "No
current home is known: Lyon until March 2024". The aspect asked about is
the family of facts (home, job, ...) whose predicate or family name shares a word
with the question; without one there is no fact answer and the extractive answer
stands. A past question answers with the facts of the period it asks about ("No
home is known on 1 January 2023" when the aspect's facts all lie outside it), an
``as_of`` question with those valid then, or, when it asks about a period, with
those of the period among what was said by then.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Protocol

from recall_engine.core.facts import Fact, is_multi_valued
from recall_engine.core.terms import terms

_NAME = re.compile(r"\b[A-Z][\w-]+")


class Interval(Protocol):
    """The period a past question asks about (``read.periods.Interval`` fits)."""

    @property
    def start(self) -> datetime | None: ...
    @property
    def end(self) -> datetime | None: ...


@dataclass(frozen=True)
class FactAnswer:
    """An answer built from facts, and the facts it rests on (the stated ones first)."""

    text: str
    facts: tuple[Fact, ...]


def _words(fact: Fact) -> set[str]:
    """The words of a fact's aspect: its predicate's and its family's own ("food" of
    "favourite:food", not the generic "favourite" or "state" before the colon)."""
    family = (fact.family or "").rpartition(":")[2].replace("_", " ")
    return set(terms(f"{fact.predicate.replace('_', ' ')} {family}"))


def asked_family(
    question: str,
    facts: Sequence[Fact],
    ranked_chunks: Sequence[str],
    vocabulary: set[str] | None = None,
) -> str | None:
    """The family the question asks about: the one whose predicate and family words
    cover every term of the question but the names in it and, given the
    ``vocabulary`` of what was found, the words that neither it nor any family says
    ("city" in "Which city does Ann live in?" tells the kind of answer); ties go to
    the family stated in the best-ranked chunk. None when no family covers them
    ("Who does Ann have lunch with at work?" asks about lunch, not the job)."""
    names = {t for m in _NAME.finditer(question) for t in terms(m.group(0))}
    asked = {t for t in terms(question) if len(t) > 1} - names  # "Ann's" leaves an "s"
    families: dict[str, set[str]] = {}
    for fact in facts:
        if fact.family:
            families.setdefault(fact.family, set()).update(_words(fact))
    if vocabulary is not None:
        said = asked & vocabulary.union(*families.values())
        if 2 * len(said) < len(asked):
            return None  # most of what it asks about is nowhere in memory
        asked = said
    if not asked:
        return None
    rank = {c: i for i, c in enumerate(ranked_chunks)}
    covering = [family for family, words in families.items() if asked <= words]
    if not covering:
        return None

    def first_rank(family: str) -> int:
        return min(
            (rank.get(f.chunk_id or "", len(rank)) for f in facts if f.family == family),
            default=len(rank),
        )

    return min(covering, key=lambda family: (first_rank(family), family))


def _month(when: datetime | None) -> str:
    return "" if when is None else f"{when:%B %Y}"


def _values(facts: Sequence[Fact]) -> str:
    """One statement's objects: "Paris (Montmartre)"; several statements joined."""
    by_statement: dict[tuple[datetime | None, str | None], list[Fact]] = {}
    for fact in sorted(facts, key=lambda f: f.valid_from or datetime.min):
        by_statement.setdefault((fact.valid_from, fact.chunk_id), []).append(fact)
    parts = []
    for group in by_statement.values():
        names = list(dict.fromkeys(f.object for f in _in_text_order(group)))
        head, rest = names[0], names[1:]
        parts.append(f"{head} ({', '.join(rest)})" if rest else head)
    return " and ".join(dict.fromkeys(parts))


def _in_text_order(facts: Sequence[Fact]) -> list[Fact]:
    def position(fact: Fact) -> int:
        at = (fact.context or fact.text or "").lower().find(fact.object.lower())
        return at if at >= 0 else 1 << 30

    return sorted(facts, key=position)


def _held_at(facts: Sequence[Fact], when: datetime | None) -> list[Fact]:
    if when is None:
        return [f for f in facts if f.current]
    return [f for f in facts if f.valid_at(when)]


def fact_answer(
    question: str,
    facts: Sequence[Fact],
    *,
    reading: str,
    ranked_chunks: Sequence[str] = (),
    vocabulary: set[str] | None = None,
    as_of: datetime | None = None,
    interval: Interval | None = None,
    family: str | None = None,
) -> FactAnswer | None:
    """The answer from ``facts`` (a subject's history) for ``reading`` ("present",
    "as_of", "past"), or None when the facts do not answer the question.
    ``question`` is best given without its time cues (``TenseReading.without_cues``);
    ``family``, when given, is the aspect asked about (else ``asked_family``).
    ``interval`` is the period the question asks about (a past question's, or a
    present one's up to now: "since March 2023"); it is answered for that period,
    with reading "as_of" from ``facts`` as known at ``as_of`` (``held_then``), rather
    than for ``as_of`` itself."""
    family = family or asked_family(question, facts, ranked_chunks, vocabulary)
    if family is None:
        return None
    aspect = [f for f in facts if f.family == family]
    if reading == "past" or interval is not None:
        answer = _past(aspect, interval)
        if answer is not None and reading == "as_of" and as_of is not None:
            answer = FactAnswer(f"{answer.text} (as of {as_of.date().isoformat()})", answer.facts)
    else:
        answer = _now(aspect, as_of)
    asked = question.lower()
    if answer is None or all(f.object.lower() in asked for f in answer.facts[:1]):
        return None  # only repeats what the question names ("when she lived in Lyon")
    return answer


def _now(aspect: Sequence[Fact], as_of: datetime | None) -> FactAnswer | None:
    """The values held now (or at ``as_of``), since when, and what they replaced."""
    held = _held_at(aspect, as_of)
    if not held:
        return _none_held(aspect, as_of)
    since = min((f.valid_from for f in held if f.valid_from), default=None)
    before = [f for f in aspect if since is not None and f.valid_until == since]
    text = _values(held)
    if since is not None:
        text += f", since {_month(since)}"
    if as_of is not None:
        text += f" (as of {as_of.date().isoformat()})"
    if before:
        text += f"; before that {_values(before)}"
    return FactAnswer(text, tuple([*held, *before]))


def _none_held(aspect: Sequence[Fact], as_of: datetime | None) -> FactAnswer | None:
    """No value holds now (or at ``as_of``) because every one known then had ended: the
    last ones and until when, and what they replaced. None when a value has not ended
    (one planned to begin later)."""
    known = [f for f in aspect if as_of is None or f.valid_from is None or f.valid_from <= as_of]
    if not known or any(
        f.valid_until is None or (as_of is not None and f.valid_until > as_of) for f in known
    ):
        return None
    end = max(f.valid_until for f in known if f.valid_until)
    last = [f for f in known if f.valid_until == end]
    since = min((f.valid_from for f in last if f.valid_from), default=None)
    before = [f for f in known if since is not None and f.valid_until == since]
    kind = (known[0].family or "").rpartition(":")[2].replace("_", " ")
    when = "current " if as_of is None else ""
    at = "" if as_of is None else f" as of {as_of.date().isoformat()}"
    text = f"No {when}{kind} is known{at}: {_values(last)} until {_month(end)}"
    if before:
        text += f"; before that {_values(before)}"
    return FactAnswer(text, tuple([*last, *before]))


def _past(aspect: Sequence[Fact], interval: Interval | None) -> FactAnswer | None:
    """The values of the period asked about: those that overlap it, or for a period
    open towards the past ("before Paris", "first"), those held just before it
    ended; every replaced value when no period is told."""
    if interval is None:
        held = [f for f in aspect if not f.current]
    elif interval.start is None and interval.end is not None and _several(aspect):
        cut = interval.end  # several values at once: all those still held when it ended
        held = [f for f in aspect if f.valid_from is not None and f.valid_from < cut]
        held = [f for f in held if f.valid_until is None or f.valid_until >= cut]
    elif interval.start is None and interval.end is not None:
        before = [f for f in aspect if f.valid_from is not None and f.valid_from < interval.end]
        latest = max((f.valid_from for f in before if f.valid_from), default=None)
        held = [f for f in before if f.valid_from == latest]
    else:
        held = [
            f
            for f in aspect
            if (interval.end is None or (f.valid_from or datetime.min) < interval.end)
            and (interval.start is None or f.valid_until is None or f.valid_until > interval.start)
        ]
    if not held:
        return None if interval is None else _none_in(aspect, interval)
    start = min((f.valid_from for f in held if f.valid_from), default=None)
    end = max((f.valid_until for f in held if f.valid_until), default=None)
    span = []
    if start is not None:
        span.append(f"from {_month(start)}")
    if end is not None and not _current(held):
        span.append(f"until {_month(end)}")
    text = _values(held)
    return FactAnswer(f"{text} ({' '.join(span)})" if span else text, tuple(held))


def _none_in(aspect: Sequence[Fact], interval: Interval) -> FactAnswer | None:
    """No value of the aspect held in ``interval``: the last values that ended before
    it and the first that began after it ("No home is known on 1 January 2023; after
    that Lyon, from January 2023"). None when the aspect has no dated fact."""
    start, end = interval.start, interval.end
    before = [f for f in aspect if start and f.valid_until and f.valid_until <= start]
    after = [f for f in aspect if end and f.valid_from and f.valid_from >= end]
    ended = max((f.valid_until for f in before if f.valid_until), default=None)
    began = min((f.valid_from for f in after if f.valid_from), default=None)
    if ended is None and began is None:
        return None
    last = [f for f in before if f.valid_until == ended]
    first = [f for f in after if f.valid_from == began]
    kind = (aspect[0].family or "").rpartition(":")[2].replace("_", " ")
    text = f"No {kind} is known {_when(interval)}"
    if last:
        text += f"; before that {_values(last)}, until {_month(ended)}"
    if first:
        text += f"; after that {_values(first)}, from {_month(began)}"
    return FactAnswer(text, tuple([*last, *first]))


def _when(interval: Interval) -> str:
    """The interval in words: "on 6 March 2023", "in March 2023", "in 2023", "before
    1 January 2023", "from 1 March 2023 to 5 March 2023"."""
    start, end = interval.start, interval.end
    if start is None and end is None:
        return "then"
    if start is None or end is None:
        return f"before {_day(end)}" if end is not None else f"after {_day(start)}"
    midnight = start.time() == time()
    if midnight and end == start + timedelta(days=1):
        return f"on {_day(start)}"
    if midnight and start.day == 1 and end == _next_month(start):
        return f"in {start:%B %Y}"
    if (
        midnight
        and (start.month, start.day) == (1, 1)
        and end == start.replace(year=start.year + 1)
    ):
        return f"in {start.year}"
    return f"from {_day(start)} to {_day(end - timedelta(days=1))}"


def _day(when: datetime | None) -> str:
    return "" if when is None else f"{when.day} {when:%B %Y}"


def _next_month(when: datetime) -> datetime:
    return when.replace(year=when.year + when.month // 12, month=when.month % 12 + 1)


def _several(facts: Sequence[Fact]) -> bool:
    return bool(facts) and all(is_multi_valued(f.family) for f in facts)


def _current(facts: Sequence[Fact]) -> bool:
    return any(f.current for f in facts)
