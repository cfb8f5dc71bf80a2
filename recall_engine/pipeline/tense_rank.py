"""Hits ranked for the time a question asks about, by the tense stage.

A past question's period (``asked_period``) ranks the hits that lie in it first
(``rank_past``); a question about now ranks current facts, and what was said since
the latest change of the aspect asked about, first (``rank_present``); the chunks
stating the facts that answer come first either way, read from the store when the
retriever missed them (``with_answering_chunks``). Each ranked hit says whether it
fits the time asked about.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from recall_engine.core.facts import Fact
from recall_engine.core.hits import Hit
from recall_engine.pipeline.as_of import held_then
from recall_engine.pipeline.tense_facts import FactSource, ended, overlaps, started
from recall_engine.pipeline.tense_hits import chunk_of, hit_time
from recall_engine.pipeline.tense_state import Tense
from recall_engine.read.periods import (
    Interval,
    asked_interval,
    change_points,
    period_first,
    period_index,
    present_first,
)
from router.tense import TenseReading

Ranked = list[tuple[Hit, float, bool]]
"""Hits in order, each with its score and whether it fits the time asked about."""
Aspects = Callable[[Hit], frozenset[str]]
"""A hit -> the question's aspect terms it states."""


def asked_period(tense: Tense, hits: list[Hit], aspects: Aspects) -> Interval | None:
    """The period a question asks about: told by its cue and the subject's facts
    (``asked_interval``), else by the date it names (``Tense.dated``), else by the hits
    that state the same aspect (``stated_interval``); None when none tells it."""
    reading = tense.reading
    if reading.period in ("first", "previous") and tense.family is None:
        # "his first call-out" names an event: a period needs an aspect with a history
        return None
    families = {tense.family} if tense.family else None
    told = asked_interval(reading.period, reading.anchor, tense.facts, families=families)
    if told is None and tense.dated is not None:
        told = tense.dated.interval
    return told or stated_interval(reading, hits, [h for h in hits if aspects(h)])


def stated_interval(reading: TenseReading, hits: list[Hit], stating: list[Hit]) -> Interval | None:
    """Without facts, the period before the first hit naming the anchor, since the
    statement of the aspect (``stating``) just before it. ("first" needs facts: "his
    first call-out" names an event, not a period.)"""
    times = sorted({t for t in map(hit_time, stating) if t is not None})
    if reading.period != "before" or not reading.anchor:
        return None
    anchor = reading.anchor.lower()
    named = [t for h in hits if anchor in h.text.lower() and (t := hit_time(h)) is not None]
    if not named:
        return None
    began = min(named)
    earlier = [t for t in times if t < began]
    return Interval(earlier[-1] if earlier else None, began)


def rank_past(
    ranked: list[tuple[Hit, float]],
    tense: Tense,
    stated: dict[str, list[Fact]],
    aspects: Aspects,
) -> Ranked:
    """The period asked about (``tense.interval``) first, each hit with whether it
    lies in it: it states a fact of the period, or was said in it and states the
    aspect asked about."""
    interval = tense.interval
    if interval is None:
        return [(h, score, True) for h, score in ranked]
    chunks = {f.chunk_id for f in tense.facts if f.family and overlaps(f, interval)}

    def inside(hit: Hit) -> bool:
        return chunk_of(hit) in chunks or (interval.holds(hit_time(hit)) and bool(aspects(hit)))

    return [(h, score, inside(h)) for h, score in period_first(ranked, inside)]


def rank_present(
    ranked: list[tuple[Hit, float]],
    tense: Tense,
    stated: dict[str, list[Fact]],
    aspects: Aspects,
) -> Ranked:
    """Current first (as of ``tense.as_of`` when given): replaced facts last, and a
    later statement of the same aspect before an earlier one, by period when the
    subject's history has changes, else by statement time; each hit with whether it
    still holds. Only when the question asks about an aspect with a history
    (``tense.family``), says "now", or gives ``as_of``: a plain present question
    ("What does Ann do to relax?") keeps the retriever's order."""
    now = tense.as_of
    explicit = now is not None or any(r.startswith("present.now") for r in tense.reading.fired)
    if tense.family is None and not explicit:
        return [(h, score, True) for h, score in ranked]
    known = tense.facts or [f for facts in stated.values() for f in facts]
    # periods are opened by changes of the aspect asked about only: another aspect's
    # changes (a mood that came and went) say nothing about what is current here
    known = [f for f in known if f.family == tense.family]
    points = [p for p in change_points(known) if now is None or p <= now]

    def period_of(hit: Hit) -> float:
        when = hit_time(hit)
        if points:
            return period_index(when, points)
        return when.timestamp() if when is not None else 0.0

    def replaced(hit: Hit) -> bool:
        facts = stated.get(chunk_of(hit) or "", [])
        if tense.family is not None:
            facts = [f for f in facts if f.family == tense.family]
        return bool(facts) and all(ended(f, now) for f in facts)

    ranked_now = present_first(ranked, period_of=period_of, aspects=aspects, replaced=replaced)
    return [(h, score, not outdated) for h, score, outdated in ranked_now]


async def with_answering_chunks(
    flagged: Ranked,
    tense: Tense,
    read: FactSource,
    stated: dict[str, list[Fact]],
) -> Ranked:
    """The chunks stating the facts that answer the question (of the aspect asked
    about, holding at the time asked about) first, read from the store when the
    retriever did not find them; ``stated`` gains their facts."""
    if tense.family is None:
        return flagged
    facts = tense.facts if tense.aspect is None else tense.aspect
    wanted = [f for f in facts if f.family == tense.family and answers(f, tense)]
    chunk_ids = list(dict.fromkeys(f.chunk_id for f in wanted if f.chunk_id))
    found = {chunk_of(h) for h, _, _ in flagged}
    missing = [c for c in chunk_ids if c not in found]
    extra: list[Hit] = list(await read.chunks_by_id(missing)) if missing else []
    if extra:
        found_facts = await read.chunk_validity(missing)
        if tense.as_of is not None:
            found_facts = {c: held_then(f, tense.as_of) for c, f in found_facts.items()}
        stated.update(found_facts)
    top = max((score for _, score, _ in flagged), default=1.0)
    first = [(h, top, True) for h in extra]
    first += [x for x in flagged if chunk_of(x[0]) in chunk_ids]
    first.sort(key=lambda x: chunk_ids.index(chunk_of(x[0]) or ""))
    return [*first, *(x for x in flagged if chunk_of(x[0]) not in chunk_ids)]


def answers(fact: Fact, tense: Tense) -> bool:
    """Whether ``fact`` held at the time the question asks about."""
    if tense.asks_period:
        return tense.interval is not None and overlaps(fact, tense.interval)
    now: datetime | None = tense.as_of
    return not ended(fact, now) and (now is None or started(fact, now))
