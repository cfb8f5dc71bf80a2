"""Which facts answer the aspect a question asks about, beyond the family's own words.

``asked_family`` (``llm.answer_facts``) finds the family whose words cover the
question. Two more readings: a question about a habit ("What does Ann drink now?")
whose verb no family and nothing found says is answered by the subject's
preferences (``habit_family``), and when a family's facts are of several kinds
(``core.facts.kind_of``: a phone and a drink switched to), the kind the question
names answers, else the facts of no kind (``of_kind``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from recall_engine.core.facts import Fact, is_multi_valued, kind_of
from recall_engine.core.terms import terms

_NAME = re.compile(r"\b[A-Z][\w-]+(?:[ \t]+[A-Z][\w-]+)*")
HABIT_FAMILY = "preference"
"""The family that answers "What does Ann drink now?" when no family's words do."""
_HABIT = re.compile(
    r"\b(?i:what|which)\b[^?]*?\b(?i:do|does|did)\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*\s+"
    r"(?P<verb>[a-z]+)\b"
)


def habit_family(
    question: str, bare: str, facts: Sequence[Fact], vocabulary: set[str]
) -> str | None:
    """``HABIT_FAMILY`` for a question about what someone habitually does ("What
    does Ann drink now?", "What did Ann drink at first?"): its one aspect word is
    the verb after the subject, nowhere in what was found (``vocabulary``) and in
    no family's words, and the subject has preferences ("I switched to rooibos").
    None otherwise.

    Args:
        question: The question as asked.
        bare: The question without its time cues (``TenseReading.without_cues``).
        facts: The subject's facts.
        vocabulary: The terms of what the retriever found.

    Returns:
        ``HABIT_FAMILY`` or None.
    """
    m = _HABIT.search(question)
    if m is None or not any(f.family == HABIT_FAMILY for f in facts):
        return None
    verb = set(terms(m.group("verb")))
    if not verb or aspect_terms(bare) != verb or verb & vocabulary:
        return None
    return HABIT_FAMILY


def of_kind(facts: Sequence[Fact], family: str, question: str) -> list[Fact] | None:
    """The facts of ``family`` of the kind ``question`` names ("drink" for
    ``prefers_drink``), else those of no kind (of a family of several values at
    once, such as pets: all of them), when the family's facts are of several
    kinds; None when they are not (every fact of the family answers).

    Args:
        facts: The subject's facts.
        family: The family asked about.
        question: The question without its time cues.

    Returns:
        The facts that answer, or None for all of the family's.
    """
    aspect = [f for f in facts if f.family == family]
    kinds = {f.id: kind_of(f.predicate) for f in aspect}
    if len(set(kinds.values())) < 2:
        return None
    asked = aspect_terms(question)
    named = [f for f in aspect if asked & set(terms((kinds[f.id] or "").replace("_", " ")))]
    if named or is_multi_valued(family):
        return named or None  # "What pets does Ann have?": every species
    return [f for f in aspect if kinds[f.id] is None]


def aspect_terms(question: str) -> set[str]:
    """The question's terms less the names it mentions (a subject is no aspect).

    Args:
        question: A question.

    Returns:
        Its stemmed terms (``llm.extractive.terms``) but those of its names.
    """
    names = {t for m in _NAME.finditer(question) for t in terms(m.group(0))}
    return {t for t in terms(question) if len(t) > 1} - names
