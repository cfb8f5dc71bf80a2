"""The part of a sentence that answers a typed question: a date, a place, a person, a number.

Built on the graph's own rules (``recall_engine.graph``): date phrases are found
and resolved against the sentence's time (a conversation turn's timestamp) with
the same dateparser setup as ingestion, and names are spotted and typed by the
rule-based entity extractor. Names the question itself uses are never an answer
("Where does Grace live?" is not answered "Grace").
"""

from __future__ import annotations

import re
from datetime import datetime

from recall_engine.core.graph import EntityType
from recall_engine.core.names import normalize_name
from recall_engine.graph import lexicon as lx
from recall_engine.graph.dates import find_date_phrases, resolve_date
from recall_engine.graph.rules_entities import Claims, identifier_spans, name_spans
from recall_engine.llm.answer_types import AnswerType

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    "eighty|ninety|hundred|thousand|million|billion|dozen|a few|several|couple"
)
_NUMBER = re.compile(
    rf"\b(?:\d[\d,.]*%?|(?:{_NUMBER_WORDS})(?:[- ](?:{_NUMBER_WORDS}))*)"
    r"(?: (?!(?:and|or|the|a|of|to|in|on|at|for)\b)[a-z]+)?",
    re.IGNORECASE,
)
_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_FUTURE = re.compile(r"\b(?:will|going to|plan|plans|planning|next|upcoming|tomorrow)\b", re.I)


def format_time(value: datetime, granularity: str) -> str:
    """A resolved time as people write it: "7 May 2023", "May 2023", "2023"."""
    if granularity == "year":
        return str(value.year)
    if granularity == "month":
        return f"{value:%B} {value.year}"
    if granularity == "week":
        return f"the week of {value.day} {value:%B} {value.year}"
    return f"{value.day} {value:%B} {value.year}"


def time_span(sentence: str, when: datetime | None) -> str | None:
    """The time ``sentence`` states, resolved against ``when``; else ``when``'s day."""
    future = _FUTURE.search(sentence) is not None
    for _start, _end, phrase in find_date_phrases(sentence):
        resolved = resolve_date(phrase, when, prefer="future" if future else "past")
        if resolved is not None:
            return format_time(resolved.value, resolved.granularity)
    return format_time(when, "day") if when is not None else None


def _names(sentence: str, speaker: str | None) -> list[tuple[str, EntityType, int]]:
    claims = Claims(len(sentence))
    found = [(s.name, s.type, s.start) for s in identifier_spans(sentence, claims)]
    spans, _ = name_spans(sentence, {0}, claims, speaker)
    found += [(s.name, s.type, s.start) for s in spans]
    return sorted(found, key=lambda f: f[2])


def typed_span(
    sentence: str,
    answer_type: AnswerType,
    *,
    question: str,
    when: datetime | None = None,
    speaker: str | None = None,
) -> str | None:
    """The span of ``sentence`` that answers a question of ``answer_type``, or None
    (also for types answered by a whole sentence: reasons, descriptions, lists)."""
    if answer_type is AnswerType.TIME:
        return time_span(sentence, when)
    if answer_type is AnswerType.NUMBER:
        asked = set(normalize_name(question).split())
        dates = [(start, end) for start, end, _ in find_date_phrases(sentence)]
        for m in _NUMBER.finditer(sentence):
            words = normalize_name(m.group()).split()
            in_date = any(start <= m.start() < end for start, end in dates)
            if words and words[0] not in asked and not in_date:
                return m.group().strip()
        return None
    if answer_type not in (AnswerType.PLACE, AnswerType.PERSON):
        return None
    asked = set(normalize_name(question).split())
    candidates = [
        (name, type_, start)
        for name, type_, start in _names(sentence, speaker)
        if normalize_name(name) and not set(normalize_name(name).split()) <= asked
    ]
    if answer_type is AnswerType.PLACE:
        places = [
            c for c in candidates if c[1] is EntityType.PLACE or _after_place_word(sentence, c[2])
        ]
        # "moved from Arlington to Lisbon": the place now, not the one left
        places.sort(key=lambda c: bool(_FROM_BEFORE.search(sentence[: c[2]])))
        return places[0][0] if places else None
    people = [c for c in candidates if c[1] is EntityType.PERSON]
    return people[0][0] if people else None


def _after_place_word(sentence: str, start: int) -> bool:
    before = sentence[max(0, start - 12) : start].lower().split()
    return bool(before) and before[-1] in lx.PLACE_PREPOSITIONS
