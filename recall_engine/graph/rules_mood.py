"""Whether a clause asserts what its verb phrase says: moods as data.

"I moved to Oslo" states a fact; "Should I move to Oslo?", "If I moved to Oslo,
...", "I would move to Oslo" and "I'll move to Oslo" do not. A fact of a family
that holds values over time (``supersession.family_of``: home, job, a state) is
taken from a clause only when the clause asserts it; otherwise the words only
relate the names they join (a co-mention) and change nothing that holds. A plan
with a date later than its statement ("I'll move to Oslo in June") is a fact
from that date (``supersession.stamp``).

Each ``MoodRule`` names one grammatical pattern, read in one part of the clause;
its ``examples`` are test cases: (sentence, whether its first fact is asserted),
read with the speaker "Ann" and a message time of 2024-03-01.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import regex

from recall_engine.core.facts import as_utc
from recall_engine.graph.supersession import PLAN_WORDING

Part = Literal["clause", "lead", "verb"]


@dataclass(frozen=True, slots=True)
class MoodRule:
    """A clause is not asserted when ``pattern`` is found in its ``part``: the
    ``clause`` (from the last comma, semicolon or colon before the subject to the
    next one after the object, or the sentence's end), its ``lead`` (the words
    before the subject) or its ``verb`` (the words between the subject and the
    object). A ``dated`` rule (a plan) still asserts when
    the sentence names a time later than its statement."""

    id: str
    part: Part
    pattern: str
    dated: bool = False
    examples: tuple[tuple[str, bool], ...] = ()


MOOD_RULES: tuple[MoodRule, ...] = (
    MoodRule(
        "question",
        "clause",
        r"\?[\"'”’)\]]*$",
        examples=(
            ("So you moved to Oslo?", False),
            ("I moved to Oslo last week, didn't I tell you?", True),
        ),
    ),
    MoodRule(
        "inverted",
        "lead",
        # an auxiliary before the subject: a question, or a condition ("Had I moved, ...")
        r"^\s*(?:what|where|why|how|who|which|when|)\s*\b(?:do|does|did|is|are|am|was|were"
        r"|will|would|should|shall|can|could|may|might|must|have|has|had)\s*$",
        examples=(
            ("Should I move to Oslo, Bob?", False),
            ("Had I moved to Oslo, I'd know.", False),
        ),
    ),
    MoodRule(
        "conditional",
        "lead",
        r"\b(?:if|unless|whether|suppose|supposing|imagine)\b",
        examples=(
            ("If I moved to Berlin, I would miss my friends.", False),
            ("I'd be happier if I lived in Berlin.", False),
            ("If you ask me, I moved to Oslo at the right time.", True),
        ),
    ),
    MoodRule(
        "modal",
        "verb",
        # "'d" is "would" before a bare verb, "had" before a participle ("I'd moved")
        r"\b(?:would|could|might|may|should|must|can)\b|'d\s+(?!\p{L}+(?:ed|en)\b|been\b|got\b"
        r"|left\b|quit\b|had\b)",
        examples=(("I might move to Oslo.", False), ("I would work at Initech.", False)),
    ),
    MoodRule(
        "plan",
        "verb",
        PLAN_WORDING.pattern,
        dated=True,
        examples=(
            ("I'm going to move to Oslo.", False),
            ("I will move to Oslo in June.", True),
        ),
    ),
)
_COMPILED = tuple((rule, regex.compile(rule.pattern, regex.IGNORECASE)) for rule in MOOD_RULES)
_CLAUSE_BREAK = regex.compile(r"[,;:]")


def asserted(
    text: str,
    sentence: tuple[int, int],
    subject: tuple[int, int],
    object_start: int,
    *,
    dated_later: bool,
) -> bool:
    """Whether the clause of ``text`` whose subject spans ``subject`` (offsets)
    and whose object starts at ``object_start`` asserts what it says.

    Args:
        sentence: The sentence's (start, end) offsets.
        dated_later: The sentence names a time later than its statement.
    """
    start, end = sentence
    lead_start = start
    for m in _CLAUSE_BREAK.finditer(text, start, max(start, subject[0])):
        lead_start = m.end()
    after = _CLAUSE_BREAK.search(text, max(start, object_start), end)
    parts = {
        "clause": text[lead_start : after.start() if after else end].rstrip(),
        "lead": text[lead_start : max(lead_start, subject[0])],
        "verb": text[subject[1] : max(subject[1], object_start)],
    }
    for rule, pattern in _COMPILED:
        if pattern.search(parts[rule.part]) and not (rule.dated and dated_later):
            return False
    return True


def names_later_time(times: Iterable[datetime | None], stated: datetime | None) -> bool:
    """Whether one of a sentence's resolved ``times`` is later than ``stated``
    (with no statement time, any resolved time counts: it was read as future
    only when the sentence says so)."""
    base = as_utc(stated)
    return any(t is not None and (base is None or as_utc(t) > base) for t in times)  # type: ignore[operator]
