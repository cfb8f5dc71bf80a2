"""Offline answers: the context sentences that answer what the question asks for.

Deterministic, no model. Tokens are lowercased, stopwords dropped, words stemmed
(Snowball English via PyStemmer). Each sentence of the ranked context is scored
by the summed IDF of the question terms it contains (as a share of the terms
found anywhere in the context), plus a bonus when it holds what the question's
answer type asks for (``answer_types``: a date for "when", a place for
"where", ...) and a prior for the item's rank. A sentence must share at least
one term with the question.

The best sentence is the answer's anchor. When it leaves question terms
uncovered and names something the question does not (an id, a name: "blocked
on ERR-4012"), the sentences that name that thing are its one-hop facts; the one
covering the missing terms answers ("ERR-4012 was a database outage ..."), and
the anchor stays as the bridge. Further sentences (lists, descriptions) come
only from the anchor's dataset, so an answer never mixes in another dataset's
look-alike. Every chosen sentence keeps its provenance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recall_engine.core.hits import AnyHit, ChunkHit, EntityHit, RowHit, TripletHit
from recall_engine.core.names import normalize_name
from recall_engine.core.terms import STOPWORDS as STOPWORDS  # re-exported
from recall_engine.core.terms import terms as terms  # re-exported
from recall_engine.graph.rules_entities import Claims, identifier_spans, name_spans
from recall_engine.graph.rules_entities import split_sentences as sentence_offsets
from recall_engine.llm.answer_spans import typed_span
from recall_engine.llm.answer_types import AnswerType

NO_CONTEXT_TEXT = "No context was retrieved for this question, so there is no answer to give."
NOT_IN_CONTEXT_TEXT = "The retrieved context does not contain an answer to this question."

_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*[-*•]\s)")
_HEADING = re.compile(r"(?m)^([ \t]*#.*)$")
_HEADER = re.compile(r"^\[[^\]\n]{4,40}\]\s*")


TYPE_BONUS = {
    AnswerType.TIME: 0.3,
    AnswerType.PLACE: 0.3,
    AnswerType.PERSON: 0.3,
    AnswerType.NUMBER: 0.3,
}
"""Score added to a sentence holding a span of the asked type (answer-type fit)."""
RANK_PRIOR = 0.3
"""Score of the best-ranked item's sentences; rank r gets RANK_PRIOR / (1 + r)."""
MORE_SENTENCES = {AnswerType.LIST: 3, AnswerType.DESCRIPTION: 1, AnswerType.REASON: 1}
"""Sentences after the anchor (same dataset, at least half its score), per type."""


@dataclass(frozen=True)
class Evidence:
    """One chosen sentence with its provenance, score and role in the answer."""

    sentence: str
    item_index: int
    score: float
    data_id: str | None = None
    chunk_id: str | None = None
    dataset_id: str | None = None
    dataset_name: str | None = None
    span: str | None = None
    role: str = "answer"
    """"answer", "bridge" (the anchor a one-hop fact was reached from) or "summary"."""


@dataclass
class Candidate:
    """A context sentence as a candidate answer."""

    sentence: str
    rank: int
    position: int
    item: AnyHit
    matched: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    score: float = 0.0
    span: str | None = None


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: paragraphs, bullets and heading lines apart, then
    sentence ends (not after "Dr." or an initial); headings and fragments dropped."""
    out: list[str] = []
    for paragraph in _PARAGRAPH.split(_HEADING.sub("\n\n\\1\n\n", text)):
        flat = re.sub(r"\s+", " ", paragraph or "").strip()
        if flat.startswith("#"):
            flat = _drop_heading(flat)
        if not flat:
            continue
        for start, end in sentence_offsets(flat):
            piece = flat[start:end].strip(" -*•")
            if len(piece) >= 3:
                out.append(piece)
    return out


_HEADING_GLUE = frozenset(["a", "an", "and", "at", "for", "in", "of", "on", "the", "to", "with"])


def _drop_heading(flat: str) -> str:
    """A heading line, or a chunk whose whitespace was collapsed with its heading
    first ("# Team handbook Dr. Ada ..."): the text after the heading. The heading
    ends before the first capitalised word past its first one that does not follow
    a small joining word ("Notes on Grace")."""
    words = flat.lstrip("#").split()
    for i in range(1, min(len(words), 10)):
        if words[i][:1].isupper() and words[i - 1].lower() not in _HEADING_GLUE:
            return " ".join(words[i:])
    return ""


def provenance(item: AnyHit) -> tuple[str | None, str | None]:
    """(data_id, chunk_id) of the chunk an item rests on."""
    if isinstance(item, ChunkHit):
        return item.data_id, item.chunk_id
    chunk_id = getattr(item, "chunk_id", None)
    data_id = getattr(item, "data_id", None)
    if item.sources:
        data_id = data_id or item.sources[0].data_id
        chunk_id = chunk_id or item.sources[0].chunk_id
    return data_id, chunk_id


def item_time(item: AnyHit) -> datetime | None:
    raw = getattr(item, "timestamp", None)
    if not raw:
        return None
    try:
        return datetime.fromisoformat(str(raw)).replace(tzinfo=None)
    except ValueError:
        return None


def item_sentences(item: AnyHit) -> list[str]:
    """The sentences an item contributes: a turn without its "[time] speaker:" header,
    a triplet's source sentence; entities and Cypher rows contribute none."""
    if isinstance(item, EntityHit | RowHit):
        return []
    if isinstance(item, TripletHit):
        return split_sentences(item.context)
    text = item.text
    if isinstance(item, ChunkHit) and item.speaker:
        text = _HEADER.sub("", text, count=1)
        if text.startswith(f"{item.speaker}:"):
            text = text[len(item.speaker) + 1 :]
    return split_sentences(text)


def candidates(items: Sequence[AnyHit]) -> list[Candidate]:
    """Every distinct sentence of ``items``, in rank order, with its terms (a
    speaker's name counts as a term of what they said)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for rank, item in enumerate(items):
        speaker = getattr(item, "speaker", None) or ""
        for position, sentence in enumerate(item_sentences(item)):
            key = sentence.lower()
            if key in seen:
                continue
            seen.add(key)
            words = set(terms(f"{speaker} {sentence}"))
            out.append(Candidate(sentence, rank, position, item, words=words))
    return out


def idf_weights(wanted: set[str], pool: Sequence[Candidate]) -> dict[str, float]:
    n = len(pool)
    df = {t: sum(1 for c in pool if t in c.words) for t in wanted}
    return {t: math.log(1.0 + n / df[t]) for t in wanted if df[t]}


def score_candidates(
    question: str, answer_type: AnswerType, pool: Sequence[Candidate], *, wanted: set[str]
) -> dict[str, float]:
    """Score every candidate in place (see the module docstring); returns the IDF used."""
    idf = idf_weights(wanted, pool)
    total = sum(idf.values()) or 1.0
    bonus = TYPE_BONUS.get(answer_type, 0.0)
    for c in pool:
        c.matched = c.words & wanted
        if not c.matched:
            c.score = 0.0
            continue
        if bonus:
            c.span = typed_span(
                c.sentence,
                answer_type,
                question=question,
                when=item_time(c.item),
                speaker=getattr(c.item, "speaker", None),
            )
        c.score = (
            sum(idf[t] for t in c.matched) / total
            + (bonus if c.span else 0.0)
            + RANK_PRIOR / (1 + c.rank)
        )
    return idf


def bridge_names(sentence: str, question: str) -> list[str]:
    """Ids and multi-word or mid-sentence names in ``sentence`` that ``question``
    does not use: what a one-hop fact could be about."""
    asked = set(normalize_name(question).split())
    claims = Claims(len(sentence))
    found = [s.name for s in identifier_spans(sentence, claims)]
    spans, _ = name_spans(sentence, {0}, claims, None)
    found += [s.name for s in spans]
    out = []
    for name in found:
        key = normalize_name(name)
        if key and not set(key.split()) <= asked and name not in out:
            out.append(name)
    return out


def one_hop(
    anchor: Candidate, pool: Sequence[Candidate], idf: dict[str, float], question: str
) -> Candidate | None:
    """The sentence naming one of the anchor's bridge names that covers question
    terms the anchor leaves uncovered (best such, by the terms it adds)."""
    missing = set(idf) - anchor.matched
    if not missing:
        return None
    best: tuple[float, int, Candidate] | None = None
    for name in bridge_names(anchor.sentence, question):
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
        for c in pool:
            if c is anchor or not pattern.search(c.sentence):
                continue
            gain = sum(idf[t] for t in c.words & missing)
            if gain > 0 and (best is None or (gain, -c.rank) > (best[0], best[1])):
                best = (gain, -c.rank, c)
    return best[2] if best else None


def to_evidence(c: Candidate, role: str = "answer") -> Evidence:
    data_id, chunk_id = provenance(c.item)
    return Evidence(
        sentence=c.sentence,
        item_index=c.rank,
        score=round(c.score, 6),
        data_id=data_id,
        chunk_id=chunk_id,
        dataset_id=c.item.dataset_id,
        dataset_name=c.item.dataset_name,
        span=c.span,
        role=role,
    )


def select_evidence(
    question: str,
    items: Sequence[AnyHit],
    *,
    answer_type: AnswerType = AnswerType.DESCRIPTION,
    max_sentences: int | None = None,
) -> list[Evidence]:
    """The sentences of ``items`` that answer ``question``, answer first (maybe none)."""
    wanted = set(terms(question))
    if not wanted or not items:
        return []
    pool = candidates(items)
    idf = score_candidates(question, answer_type, pool, wanted=wanted)
    scored = sorted((c for c in pool if c.score > 0), key=lambda c: (-c.score, c.rank, c.position))
    if not scored:
        return []
    anchor = scored[0]
    hop = one_hop(anchor, pool, idf, question)
    if hop is not None:
        return [to_evidence(hop), to_evidence(anchor, "bridge")]
    more = MORE_SENTENCES.get(answer_type, 0) if max_sentences is None else max_sentences - 1
    chosen = [to_evidence(anchor)]
    for c in scored[1:]:
        if len(chosen) > more:
            break
        if c.item.dataset_id == anchor.item.dataset_id and c.score >= 0.5 * anchor.score:
            chosen.append(to_evidence(c))
    return chosen
