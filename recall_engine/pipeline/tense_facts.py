"""The subject's facts for the tense stage: which are read, which held when, and how
they are shown.

``subject_facts`` reads the history of the names a question mentions; ``ended``,
``started`` and ``overlaps`` say whether a fact held at a time or in a period;
``labelled`` and ``facts_block`` tell a reader (or an LLM) which facts are current and
which were superseded, when and by what.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from recall_engine.core.facts import Fact
from recall_engine.core.hits import ChunkHit, Hit
from recall_engine.pipeline.tense_hits import ChunkSource
from recall_engine.read.periods import Interval

_NAME = re.compile(r"\b[A-Z][\w-]+(?:[ \t]+[A-Z][\w-]+)*")
MAX_SUBJECTS = 5
"""Names of the question whose facts are read (the rest are ignored)."""


class FactSource(ChunkSource, Protocol):
    """The reads the tense stage needs (``read.api.FactReads`` and ``ChunkReads``)."""

    async def facts(
        self, subject: str, *, as_of: datetime | None = None, history: bool = True
    ) -> list[Fact]: ...

    async def chunk_validity(self, chunk_ids: Sequence[str]) -> dict[str, list[Fact]]: ...

    async def latest_message_time(self) -> datetime | None: ...


async def subject_facts(question: str, read: FactSource) -> list[Fact]:
    """The facts (history included) of the names the question mentions.

    Args:
        question: The question as asked.
        read: The scoped reads.

    Returns:
        The facts of its first ``MAX_SUBJECTS`` names ("Dmitri Moreau", then
        "Dmitri" and "Moreau"), each once.
    """
    names: list[str] = []
    for m in _NAME.finditer(question):
        words = m.group(0).split()
        names += [" ".join(words)] if len(words) > 1 else []
        names += words
    found: dict[str, Fact] = {}
    for name in list(dict.fromkeys(names))[:MAX_SUBJECTS]:
        for fact in await read.facts(name):
            found.setdefault(fact.id, fact)
    return list(found.values())


async def stated_in(
    facts: list[Fact], read: FactSource, keeps: Callable[[ChunkHit], bool]
) -> list[Fact]:
    """The facts stated in chunks that ``keeps`` keeps (and those of no chunk)."""
    wanted = list(dict.fromkeys(f.chunk_id for f in facts if f.chunk_id))
    kept = {c.chunk_id for c in await read.chunks_by_id(wanted) if keeps(c)} if wanted else set()
    return [f for f in facts if f.chunk_id is None or f.chunk_id in kept]


def ended(fact: Fact, now: datetime | None) -> bool:
    """Whether ``fact`` no longer holds at ``now`` (None: it was ever replaced)."""
    if fact.valid_until is None:
        return False
    return now is None or fact.valid_until <= now


def started(fact: Fact, now: datetime) -> bool:
    """Whether ``fact`` held from ``now`` or earlier (an undated fact always did)."""
    return fact.valid_from is None or fact.valid_from <= now


def overlaps(fact: Fact, interval: Interval) -> bool:
    """Whether ``fact`` held at some time inside ``interval``."""
    start, end = fact.valid_from, fact.valid_until
    if interval.end is not None and start is not None and start >= interval.end:
        return False
    return interval.start is None or end is None or end > interval.start


def labelled(hit: Hit, facts: list[Fact], now: datetime | None) -> Hit:
    """A chunk hit with ``metadata["facts"]``: each family fact it states, described
    with its validity ("... until 2024-03-01; superseded by: ..."); other hits, and a
    chunk that states none, as they are."""
    if not facts or not isinstance(hit, ChunkHit):
        return hit
    described = [
        {"fact": f.describe(), "current": not ended(f, now), "valid_until": _iso(f.valid_until)}
        for f in facts
    ]
    return hit.model_copy(update={"metadata": {**hit.metadata, "facts": described}})


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def facts_block(facts: Sequence[Fact], now: datetime | None) -> str:
    """The subject's facts that changed over time, each labelled current or superseded,
    for the context an answer is generated from; "" when none changed.

    Args:
        facts: The subject's facts.
        now: The time they are told as of; None: now.

    Returns:
        A heading and one line per fact of a family with an ended fact.
    """
    families = {f.family for f in facts if f.family and ended(f, now)}
    lines = []
    for fact in facts:
        if fact.family not in families or (now is not None and not started(fact, now)):
            continue
        label = "superseded" if ended(fact, now) else "current"
        lines.append(f"- [{label}] {fact.describe()}")
    if not lines:
        return ""
    moment = f"as of {now.isoformat()}" if now is not None else "now"
    return f"Facts over time (current: holds {moment}; superseded: no longer holds):\n" + (
        "\n".join(lines)
    )
