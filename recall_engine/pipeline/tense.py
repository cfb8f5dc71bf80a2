"""The tense stage: rank what the retriever found for the time the question asks about.

A question about now ranks current facts and what was said since the latest change
first; a past question ranks the period it asks about first; ``as_of`` drops what was
stated after that time and answers as of then (a past question's period, among what was
said by then). A past question's period is told by its cue ("before Paris", "in 2023")
and the subject's facts, or by an explicit date it names ("on 6 March 2023", "in
February 2023", ``read.time_query``). Facts that no longer hold (or did not
yet hold) stay, ranked lower, and the context says which are current and which were
superseded, when and by what. Every result reports the reading in
``metadata["temporal"]``: ``{"reading": "present"|"past"|"as_of"|"none", "as_of": ...,
"period": ..., "fired": [...]}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from recall_engine.core.facts import Fact, parse_utc
from recall_engine.core.hits import ChunkHit, EventHit, Hit, SummaryHit, TripletHit
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.terms import terms
from recall_engine.llm.answer_facts import asked_family, fact_answer
from recall_engine.pipeline.as_of import held_then
from recall_engine.pipeline.tense_aspect import aspect_terms, habit_family, of_kind
from recall_engine.pipeline.tense_dates import asked_date
from recall_engine.read.periods import (
    Interval,
    asked_interval,
    change_points,
    period_first,
    period_index,
    present_first,
    until,
)
from retrievers import RetrieverOutput
from router.tense import TenseReading, read_tense

_NAME = re.compile(r"\b[A-Z][\w-]+(?:[ \t]+[A-Z][\w-]+)*")
MAX_SUBJECTS = 5
"""Names of the question whose facts are read (the rest are ignored)."""


class FactSource(Protocol):
    """The reads this stage needs (``read.api.FactReads``)."""

    async def facts(
        self, subject: str, *, as_of: datetime | None = None, history: bool = True
    ) -> list[Fact]: ...

    async def chunk_validity(self, chunk_ids: Sequence[str]) -> dict[str, list[Fact]]: ...

    async def chunks_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkHit]: ...


@dataclass
class Tense:
    """What the stage read and found: the reading, the subject's facts, and the
    interval a past question asks about."""

    reading: TenseReading
    as_of: datetime | None = None
    question: str = ""
    facts: list[Fact] = field(default_factory=list)
    interval: Interval | None = None
    dated: tuple[Interval, str] | None = None
    """The explicit date a past question names and its words (``asked_date``)."""
    family: str | None = None
    """The aspect a question about now asks about, when the subject's facts tell it."""
    aspect: list[Fact] | None = None
    """The facts of ``family`` that answer, when the question narrows them to a kind
    (``of_kind``) or names the family only by a habit (``habit_family``); None:
    every fact of ``family``."""
    answer_hits: list[Hit] = field(default_factory=list)
    """The hits of the time asked about (an offline answer reads these): for now,
    those no later statement of the same aspect outdates; for a past question, those
    of the period; empty when nothing tells them apart."""

    def offline_question(self) -> str | None:
        """A past question less its time cues, for an answer without an LLM: its hits
        are ranked for the period, and "when she lived in Lyon" names the period, not
        the answer. None for other readings and for a past question whose period
        was not found ("When did Ann move?" keeps its words)."""
        if not self.asks_period or self.interval is None:
            return None
        return self.bare()

    def bare(self, question: str | None = None) -> str:
        """``question`` (default: the one asked) less its time cues and the date it
        names: what it asks for."""
        out = self.reading.without_cues(self.question if question is None else question)
        if self.dated is not None:
            out = re.sub(rf"\s*\b{re.escape(self.dated[1])}\b", " ", out, flags=re.IGNORECASE)
        return re.sub(r"\s+", " ", out).strip()

    @property
    def asks_period(self) -> bool:
        """Whether hits are ranked, and the answer made, for a past period: a past
        question's, and with ``as_of`` one whose period was found (what held then,
        among what was said by ``as_of``); else for now (or ``as_of``)."""
        if self.reading.reading != "past":
            return False
        return self.as_of is None or self.interval is not None

    @property
    def name(self) -> str:
        """``as_of`` when a time was given, else the question's reading."""
        return "as_of" if self.as_of is not None else self.reading.reading

    def metadata(self) -> dict[str, object]:
        """``metadata["temporal"]``'s reading keys."""
        meta = self.reading.metadata()
        meta["reading"] = self.name
        meta["as_of"] = self.as_of.isoformat() if self.as_of else None
        if self.interval is not None and meta["period"] is None and self.dated is not None:
            meta["period"] = {"kind": "date", "anchor": self.dated[1]}
        if self.interval is not None and meta["period"] is not None:
            meta["period"].update(self.interval.metadata())
        return meta


def hit_time(hit: Hit) -> datetime | None:
    """When a hit was stated: a chunk's message time, a relation's or event's time."""
    text: str | None = None
    if isinstance(hit, (ChunkHit, TripletHit)):
        text = hit.timestamp
    elif isinstance(hit, EventHit):
        text = hit.time
    try:
        return parse_utc(text)
    except ValueError:
        return None


async def stated_at(hits: Sequence[Hit], read: FactSource) -> Callable[[Hit], datetime | None]:
    """When each of ``hits`` was stated: its own time (``hit_time``), else the time
    of the chunks it rests on, read from the store: a relation's chunk, an entity's
    first mention, the last of the chunks a summary restates.

    Args:
        hits: the retriever's hits.
        read: the scoped reads (``chunks_by_id``).

    Returns:
        Hit -> its time; None when it or one of its chunks has no time.
    """
    undated = [h for h in hits if hit_time(h) is None]
    wanted = list(dict.fromkeys(c for h in undated for c in _chunks_of(h)))
    times = {c.chunk_id: hit_time(c) for c in await read.chunks_by_id(wanted)} if wanted else {}

    def time_of(hit: Hit) -> datetime | None:
        own = hit_time(hit)
        if own is not None:
            return own
        found = [times.get(c) for c in _chunks_of(hit)]
        dated = [t for t in found if t is not None]
        if not dated or len(dated) < len(found):
            return None
        return max(dated) if isinstance(hit, SummaryHit) else min(dated)

    return time_of


def _chunks_of(hit: Hit) -> list[str]:
    """The chunks a hit rests on: its own chunk, then its sources'."""
    own = [hit.chunk_id] if isinstance(hit, TripletHit) and hit.chunk_id else []
    return list(dict.fromkeys([*own, *(s.chunk_id for s in hit.sources)]))


def _chunk_of(hit: Hit) -> str | None:
    if isinstance(hit, ChunkHit):
        return hit.chunk_id
    if isinstance(hit, TripletHit) and hit.chunk_id:
        return hit.chunk_id
    return hit.sources[0].chunk_id if hit.sources else None


async def subject_facts(question: str, read: FactSource) -> list[Fact]:
    """The facts (history included) of the names the question mentions."""
    names: list[str] = []
    for m in _NAME.finditer(question):  # "Dmitri Moreau", then "Dmitri" and "Moreau"
        words = m.group(0).split()
        names += [" ".join(words)] if len(words) > 1 else []
        names += words
    found: dict[str, Fact] = {}
    for name in list(dict.fromkeys(names))[:MAX_SUBJECTS]:
        for fact in await read.facts(name):
            found.setdefault(fact.id, fact)
    return list(found.values())


async def apply_tense(
    question: str,
    output: RetrieverOutput,
    read: FactSource,
    *,
    as_of: datetime | None,
    keeps: Callable[[ChunkHit], bool] | None = None,
) -> Tense:
    """Rank ``output``'s hits in place for the question's tense (or ``as_of``) and
    label the facts they state; returns what was read. ``keeps``: the chunks the call
    may read beyond its datasets' scope (``node_name``); the subject's facts stated
    elsewhere are left out, and with them the chunks that state them."""
    tense = Tense(read_tense(question), as_of=as_of, question=question)
    hits = list(output.hits)
    if tense.name == "none" or not hits:
        return tense
    if tense.reading.reading == "past":
        tense.dated = asked_date(question, as_of)
    tense.facts = await subject_facts(question, read)
    if keeps is not None:
        tense.facts = await _stated_in(tense.facts, read, keeps)
    chunk_ids = [c for c in map(_chunk_of, hits) if c]
    stated = await read.chunk_validity(chunk_ids)
    if as_of is not None:  # as of then, what was stated later is unknown
        tense.facts = held_then(tense.facts, as_of)
        stated = {c: held_then(facts, as_of) for c, facts in stated.items()}
        hits = until(hits, as_of, await stated_at(hits, read))
    ranked = [(h, h.score) for h in hits]
    bare = tense.bare()
    asked = aspect_terms(bare)

    def aspects(hit: Hit) -> frozenset[str]:
        return frozenset(asked & set(terms(hit.text)))

    vocabulary = {t for h in hits for t in terms(h.text)}
    tense.family = asked_family(bare, tense.facts, chunk_ids, vocabulary)
    habit = None
    if tense.family is None:
        tense.family = habit = habit_family(question, bare, tense.facts, vocabulary)
    if tense.family is not None:
        tense.aspect = of_kind(tense.facts, tense.family, bare)
    if habit is not None and tense.aspect is None:
        tense.aspect = [f for f in tense.facts if f.family == habit]
    if tense.reading.reading == "past":
        tense.interval = _asked_period(tense, hits, aspects)
    if tense.asks_period:
        flagged = _past(ranked, tense, stated, aspects)
    else:
        flagged = _present(ranked, tense, stated, aspects)
    flagged = await _with_answering_chunks(flagged, tense, read, stated)
    reordered = [_labelled(h, stated.get(_chunk_of(h) or "", []), as_of) for h, _, _ in flagged]
    keep = [h for h, (_, _, fits) in zip(reordered, flagged, strict=True) if fits]
    tense.answer_hits = keep if len(keep) < len(reordered) else []
    if [_chunk_of(h) for h in reordered] != [_chunk_of(h) for h in output.hits]:
        output.context = None  # the laid-out context followed the old order
    output.hits = reordered
    history = facts_block(tense.facts, as_of)
    if history:
        output.context = f"{output.context_text()}\n\n{history}"
    return tense


async def _stated_in(
    facts: list[Fact], read: FactSource, keeps: Callable[[ChunkHit], bool]
) -> list[Fact]:
    """The facts stated in chunks that ``keeps`` keeps."""
    wanted = list(dict.fromkeys(f.chunk_id for f in facts if f.chunk_id))
    kept = {c.chunk_id for c in await read.chunks_by_id(wanted) if keeps(c)} if wanted else set()
    return [f for f in facts if f.chunk_id is None or f.chunk_id in kept]


async def _with_answering_chunks(
    flagged: list[tuple[Hit, float, bool]],
    tense: Tense,
    read: FactSource,
    stated: dict[str, list[Fact]],
) -> list[tuple[Hit, float, bool]]:
    """The chunks stating the facts that answer the question (of the aspect asked
    about, holding at the time asked about) first, read from the store when the
    retriever did not find them; ``stated`` gains their facts."""
    if tense.family is None:
        return flagged
    facts = tense.facts if tense.aspect is None else tense.aspect
    wanted = [f for f in facts if f.family == tense.family and _answers(f, tense)]
    chunk_ids = list(dict.fromkeys(f.chunk_id for f in wanted if f.chunk_id))
    found = {_chunk_of(h) for h, _, _ in flagged}
    missing = [c for c in chunk_ids if c not in found]
    extra: list[Hit] = list(await read.chunks_by_id(missing)) if missing else []
    if extra:
        found_facts = await read.chunk_validity(missing)
        if tense.as_of is not None:
            found_facts = {c: held_then(f, tense.as_of) for c, f in found_facts.items()}
        stated.update(found_facts)
    top = max((score for _, score, _ in flagged), default=1.0)
    first = [(h, top, True) for h in extra]
    first += [x for x in flagged if _chunk_of(x[0]) in chunk_ids]
    first.sort(key=lambda x: chunk_ids.index(_chunk_of(x[0]) or ""))
    return [*first, *(x for x in flagged if _chunk_of(x[0]) not in chunk_ids)]


def _answers(fact: Fact, tense: Tense) -> bool:
    """Whether ``fact`` held at the time the question asks about."""
    if tense.asks_period:
        return tense.interval is not None and _overlaps(fact, tense.interval)
    now = tense.as_of
    return not _ended(fact, now) and (now is None or _started(fact, now))


def _labelled(hit: Hit, facts: list[Fact], now: datetime | None) -> Hit:
    """A chunk hit with ``metadata["facts"]``: each family fact it states, described
    with its validity ("... until 2024-03-01; superseded by: ...")."""
    if not facts or not isinstance(hit, ChunkHit):
        return hit
    described = [
        {"fact": f.describe(), "current": not _ended(f, now), "valid_until": _iso(f.valid_until)}
        for f in facts
    ]
    return hit.model_copy(update={"metadata": {**hit.metadata, "facts": described}})


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def facts_block(facts: Sequence[Fact], now: datetime | None) -> str:
    """The subject's facts that changed over time, each labelled current or superseded,
    for the context an answer is generated from; "" when none changed."""
    families = {f.family for f in facts if f.family and _ended(f, now)}
    lines = []
    for fact in facts:
        if fact.family not in families or (now is not None and not _started(fact, now)):
            continue
        label = "superseded" if _ended(fact, now) else "current"
        lines.append(f"- [{label}] {fact.describe()}")
    if not lines:
        return ""
    moment = f"as of {now.isoformat()}" if now is not None else "now"
    return f"Facts over time (current: holds {moment}; superseded: no longer holds):\n" + (
        "\n".join(lines)
    )


def _started(fact: Fact, now: datetime) -> bool:
    return fact.valid_from is None or fact.valid_from <= now


def _asked_period(
    tense: Tense, hits: list[Hit], aspects: Callable[[Hit], frozenset[str]]
) -> Interval | None:
    """The period a past question asks about: told by its cue and the subject's facts
    (``asked_interval``), else by the date it names (``Tense.dated``), else by the hits
    that state the same aspect (``_stated_interval``); None when none tells it."""
    reading = tense.reading
    if reading.period in ("first", "previous") and tense.family is None:
        # "his first call-out" names an event: a period needs an aspect with a history
        return None
    families = {tense.family} if tense.family else None
    told = asked_interval(reading.period, reading.anchor, tense.facts, families=families)
    if told is None and tense.dated is not None:
        told = tense.dated[0]
    return told or _stated_interval(reading, hits, [h for h in hits if aspects(h)])


def _past(
    ranked: list[tuple[Hit, float]],
    tense: Tense,
    stated: dict[str, list[Fact]],
    aspects: Callable[[Hit], frozenset[str]],
) -> list[tuple[Hit, float, bool]]:
    """The period asked about (``tense.interval``) first, each hit with whether it
    lies in it: it states a fact of the period, or was said in it and states the
    aspect asked about."""
    interval = tense.interval
    if interval is None:
        return [(h, score, True) for h, score in ranked]
    chunks = {f.chunk_id for f in tense.facts if f.family and _overlaps(f, interval)}

    def inside(hit: Hit) -> bool:
        return _chunk_of(hit) in chunks or (interval.holds(hit_time(hit)) and bool(aspects(hit)))

    return [(h, score, inside(h)) for h, score in period_first(ranked, inside)]


def _stated_interval(reading: TenseReading, hits: list[Hit], stating: list[Hit]) -> Interval | None:
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


def _present(
    ranked: list[tuple[Hit, float]],
    tense: Tense,
    stated: dict[str, list[Fact]],
    aspects: Callable[[Hit], frozenset[str]],
) -> list[tuple[Hit, float, bool]]:
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
        facts = stated.get(_chunk_of(hit) or "", [])
        if tense.family is not None:
            facts = [f for f in facts if f.family == tense.family]
        return bool(facts) and all(_ended(f, now) for f in facts)

    ranked_now = present_first(ranked, period_of=period_of, aspects=aspects, replaced=replaced)
    return [(h, score, not outdated) for h, score, outdated in ranked_now]


def _ended(fact: Fact, now: datetime | None) -> bool:
    if fact.valid_until is None:
        return False
    return now is None or fact.valid_until <= now


def _overlaps(fact: Fact, interval: Interval) -> bool:
    start, end = fact.valid_from, fact.valid_until
    if interval.end is not None and start is not None and start >= interval.end:
        return False
    return interval.start is None or end is None or end > interval.start


def tense_answer(entry: ResponseGraphEntry, question: str, tense: Tense, hits: list[Hit]) -> None:
    """Replace an extractive answer with the facts' answer when they answer the question
    for its tense (``llm.answer_facts``); the entry says so in ``answer_type`` "fact"."""
    if tense.name == "none" or not tense.facts:
        return
    answer = fact_answer(
        tense.bare(question),
        tense.facts if tense.aspect is None else tense.aspect,
        vocabulary={t for h in hits for t in terms(h.text)},
        reading=tense.name,
        ranked_chunks=[c for c in map(_chunk_of, hits) if c],
        as_of=tense.as_of,
        interval=tense.interval,
        family=tense.family if tense.aspect is not None else None,
    )
    if answer is None:
        return
    entry.text = answer.text
    entry.metadata["answer_type"] = "fact"
    entry.metadata["answer_facts"] = [f.describe() for f in answer.facts]
    if answer.facts[0].chunk_id:
        entry.metadata["chunk_id"] = answer.facts[0].chunk_id
