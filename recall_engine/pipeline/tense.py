"""The tense stage: rank what the retriever found for the time the question asks about.

A question about now ranks current facts and what was said since the latest change
first; a past question ranks the period it asks about first; ``as_of`` drops what was
stated after that time and answers as of then (a past question's period, among what was
said by then). A past question's period is told by its cue ("before Paris", "in 2023")
and the subject's facts, or by a date or period it names ("on 6 March 2023", "in late
2022", "last summer", ``pipeline.tense_dates``); a question about now that names a
period up to now ("Where has Ann lived since 2022?") is answered for that period.
Facts that no longer hold (or did not yet hold) stay, ranked lower, and the context
says which are current and which were superseded, when and by what. Every result
reports the reading in
``metadata["temporal"]``: ``{"reading": "present"|"past"|"as_of"|"none", "as_of": ...,
"period": ..., "fired": [...]}``.

The stage's parts: ``tense_state`` (what was read), ``tense_facts`` (the subject's
facts and their labels), ``tense_hits`` (when a hit was stated), ``tense_rank`` (the
order), ``tense_aspect`` and ``tense_dates`` (what the question asks about).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from recall_engine.core.hits import ChunkHit, Hit
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.terms import terms
from recall_engine.llm.answer_facts import asked_family, fact_answer
from recall_engine.pipeline.as_of import held_then
from recall_engine.pipeline.tense_aspect import aspect_terms, habit_family, of_kind
from recall_engine.pipeline.tense_dates import AskedDate, question_date
from recall_engine.pipeline.tense_facts import (
    FactSource,
    facts_block,
    labelled,
    stated_in,
    subject_facts,
)
from recall_engine.pipeline.tense_hits import chunk_of, stated_at
from recall_engine.pipeline.tense_rank import (
    asked_period,
    rank_past,
    rank_present,
    with_answering_chunks,
)
from recall_engine.pipeline.tense_state import Tense
from recall_engine.read.periods import until
from retrievers import RetrieverOutput
from router.tense import read_tense

__all__ = ["FactSource", "Tense", "apply_tense", "tense_answer"]


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
    tense.dated = await _dated(tense, read)
    tense.facts = await subject_facts(question, read)
    if keeps is not None:
        tense.facts = await stated_in(tense.facts, read, keeps)
    chunk_ids = [c for c in map(chunk_of, hits) if c]
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
    if tense.reading.reading == "past" or tense.dated is not None:
        tense.interval = asked_period(tense, hits, aspects)
    if tense.asks_period:
        flagged = rank_past(ranked, tense, stated, aspects)
    else:
        flagged = rank_present(ranked, tense, stated, aspects)
    flagged = await with_answering_chunks(flagged, tense, read, stated)
    reordered = [labelled(h, stated.get(chunk_of(h) or "", []), as_of) for h, _, _ in flagged]
    keep = [h for h, (_, _, fits) in zip(reordered, flagged, strict=True) if fits]
    tense.answer_hits = keep if len(keep) < len(reordered) else []
    if [chunk_of(h) for h in reordered] != [chunk_of(h) for h in output.hits]:
        output.context = None  # the laid-out context followed the old order
    output.hits = reordered
    history = facts_block(tense.facts, as_of)
    if history:
        output.context = f"{output.context_text()}\n\n{history}"
    return tense


async def _dated(tense: Tense, read: FactSource) -> AskedDate | None:
    """The date or period the question names (``tense_dates``): any for a past
    question; for a question about now, one open at its end ("Where has Ann lived
    since March 2023?"), which it asks about up to now."""
    dated = await question_date(tense.question, as_of=tense.as_of, latest=read.latest_message_time)
    if dated is None or tense.reading.reading == "past":
        return dated
    return dated if dated.interval.end is None else None


def tense_answer(entry: ResponseGraphEntry, question: str, tense: Tense, hits: list[Hit]) -> None:
    """Replace an extractive answer with the facts' answer when they answer the question
    for its tense (``llm.answer_facts``); the entry says so in ``answer_type`` "fact".

    Args:
        entry: The extractive answer, changed in place.
        question: The question as asked.
        tense: What ``apply_tense`` read.
        hits: The hits the answer was made from, in rank order.
    """
    if tense.name == "none" or not tense.facts:
        return
    answer = fact_answer(
        tense.bare(question),
        tense.facts if tense.aspect is None else tense.aspect,
        vocabulary={t for h in hits for t in terms(h.text)},
        reading=tense.name,
        ranked_chunks=[c for c in map(chunk_of, hits) if c],
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
