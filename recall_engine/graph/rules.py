"""The default extractor: offline, deterministic, rule-based.

Per chunk: split sentences; spot identifiers, date phrases, quoted titles and
names (``rules_entities``); in each sentence, relate mention pairs by the verb
phrase between them (``rules_relations``), relate the rest by co-mention at low
confidence, and record an event when the sentence has a resolvable time or is a
conversation turn saying something happened. In a conversation turn, "I", "we",
"me" and "my" stand for the speaker.

A chunk's extraction depends on that chunk alone, so results can be cached and
batches can be split any way without changing them.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
from collections.abc import Sequence

import regex

from recall_engine.core.graph import (
    ChunkExtraction,
    Entity,
    EntityType,
    Mention,
    NameCandidate,
    Relation,
    relation_id,
)
from recall_engine.graph import rules_relations as rr
from recall_engine.graph.dates import find_date_phrases, resolve_date
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules_entities import (
    Claims,
    Span,
    bare_common_noun,
    identifier_spans,
    name_spans,
    quoted_title_spans,
    speaker_pronoun_spans,
    split_sentences,
)
from recall_engine.graph.rules_events import DatePhrase, Sentence, context_text, sentence_events
from recall_engine.graph.rules_mood import asserted, names_later_time
from recall_engine.graph.rules_pending import PendingRelation, comentions, span_key, states
from recall_engine.graph.supersession import family_of

log = logging.getLogger(__name__)
T = EntityType

_INFINITIVE = regex.compile(r"\s*to\s", regex.IGNORECASE)
"""An infinitive after a name: the name is the object of what came before ("left
Acme to join", "asked Tom to move"), not the subject of the verb that follows."""
_FUTURE = regex.compile(
    r"\b(?:will|gonna|going\s+to|plan(?:s|ning)?\s+to|next|tomorrow|upcoming|soon)\b|'ll\b", regex.I
)


class RuleBasedExtractor:
    """The offline default ``Extractor``. Thread-safe; holds no state."""

    name = "rules-v1"

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """One extraction per chunk, in order. Runs in a worker thread so that it
        overlaps with embedding, which releases the GIL. Never raises on odd text."""
        if not chunks:
            return []
        return await asyncio.to_thread(self.extract_sync, chunks)

    def extract_sync(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """The same as ``extract``, in the calling thread."""
        return [self.extract_chunk(chunk) for chunk in chunks]

    def extract_chunk(self, chunk: ChunkInput) -> ChunkExtraction:
        """Extract one chunk. A failure inside the rules is logged and yields an
        empty extraction: one odd chunk must not stop an ingest."""
        try:
            return _extract(chunk)
        except Exception:  # a rules bug must cost one chunk's graph, not the ingest
            log.warning(
                "graph rules failed on chunk %s; it gets no graph elements",
                chunk.chunk_id,
                exc_info=True,
            )
            return ChunkExtraction(
                chunk_id=chunk.chunk_id, namespace=chunk.namespace, data_id=chunk.data_id
            )


def _extract(chunk: ChunkInput) -> ChunkExtraction:
    text, speaker = chunk.text, (chunk.speaker or "").strip() or None
    empty = ChunkExtraction(
        chunk_id=chunk.chunk_id, namespace=chunk.namespace, data_id=chunk.data_id
    )
    if not text.strip():
        return empty
    sentences = [Sentence(s, e) for s, e in split_sentences(text)]
    starts = [s.start for s in sentences]
    claims = Claims(len(text))
    spans = identifier_spans(text, claims)
    future_at: dict[int, bool] = {}  # per sentence, read once: a sentence may hold many dates
    for start, end, phrase in find_date_phrases(text):
        if not claims.free(start, end):
            continue
        claims.claim(start, end)
        at = _index(starts, start)
        sentence = sentences[at]
        if at not in future_at:
            future_at[at] = _FUTURE.search(text, sentence.start, sentence.end) is not None
        future = future_at[at]
        resolved = resolve_date(phrase, chunk.timestamp, prefer="future" if future else "past")
        date = DatePhrase(start, end, phrase, resolved)
        sentence.dates.append(date)
        if date.resolved is not None:
            iso = date.resolved.value.isoformat()
            spans.append(Span(start, end, phrase, date.resolved.label(), T.DATE, identifier=iso))
    spans += quoted_title_spans(text, claims)
    names, set_aside = name_spans(text, set(starts), claims, speaker)
    spans += names
    if speaker:
        spans += speaker_pronoun_spans(text, speaker)
    spans.sort(key=lambda s: (s.start, s.end))
    for span in spans:
        sentences[_index(starts, span.start)].spans.append(span)

    pending: list[PendingRelation] = []
    for sentence in sentences:
        times = [d.resolved.value for d in sentence.dates if d.resolved is not None]
        later = names_later_time(times, chunk.timestamp)
        pending += _sentence_relations(text, sentence, spans, speaker, later=later)
    _unify_types(spans)
    extraction = _build(chunk, text, speaker, sentences, spans, pending)
    return extraction.model_copy(update={"candidates": _candidates(chunk, set_aside)})


def _index(starts: list[int], offset: int) -> int:
    return max(0, bisect.bisect_right(starts, offset) - 1)


def _sentence_relations(
    text: str,
    sentence: Sentence,
    all_spans: list[Span],
    speaker: str | None = None,
    *,
    later: bool = False,
) -> list[PendingRelation]:
    """Pattern relations between mention pairs, noun-phrase kinds, then co-mentions.
    A fact that holds over time is kept only from a clause that asserts it
    (``rules_mood``; ``later``: the sentence names a time after its statement)."""

    def stated(subject: Span, predicate: str, target_name: str, object_start: int) -> bool:
        return family_of(predicate, target_name) is None or asserted(
            text, (sentence.start, sentence.end), (subject.start, subject.end), object_start,
            dated_later=later,
        )  # fmt: skip

    found: list[PendingRelation] = []
    related: set[tuple[str, str]] = set()
    subject_of: dict[int, Span] = {}  # id of a pattern relation's target -> its latest source
    spans = [s for s in sentence.spans if s.type is not T.DATE]
    limit = min([d.start for d in sentence.dates] + [sentence.end])
    for i, a in enumerate(spans):
        if a.pronoun in ("object", "possessive"):
            continue
        np_object = None
        if a.pronoun is not None or a.type not in (T.URL, T.EMAIL):
            np_object = rr.np_object_after(text, a.end, limit if limit > a.end else sentence.end)
            if np_object is not None and bare_common_noun(np_object[0], np_object[1]):
                np_object = None
        for j in range(i + 1, len(spans)):  # by index: a slice per span is quadratic
            b = spans[j]
            if b.start - a.end > rr.MAX_GAP:
                break
            if b.pronoun in ("subject", "possessive") or span_key(a) == span_key(b):
                continue
            if np_object is not None and np_object[3] <= b.start and b.end < np_object[4]:
                related.add(
                    (span_key(a), span_key(b))
                )  # "joined an LGBTQ activist group": the group
                continue
            if _INFINITIVE.match(text, a.end, b.start):
                continue  # "I left Acme to join Globex": Acme is no subject of "join"
            match = rr.match_gap(text[a.end : b.start])
            if match is None:
                continue
            pattern, subject = match.pattern, a
            if match.coordinated:  # "X lives in Y and works for Z": X works for Z
                if id(a) not in subject_of:
                    continue
                subject = subject_of[id(a)]
            if not stated(subject, pattern.predicate, b.name, b.start):
                continue  # "If I moved to Berlin, ...": the names are only co-mentioned
            source, target = (b, subject) if pattern.reverse else (subject, b)
            _hint(source, pattern.subject_type)
            _hint(target, pattern.object_type)
            found.append(
                PendingRelation(
                    source, target, pattern.predicate, match.raw, pattern.confidence, sentence
                )
            )
            subject_of[id(target)] = source
            related.add((span_key(a), span_key(b)))
            related.add((span_key(subject), span_key(b)))
        if np_object is not None and stated(a, np_object[0], np_object[1], np_object[3]):
            predicate, phrase, confidence, start, end = np_object
            target = Span(start, end, phrase, phrase, T.CONCEPT)
            all_spans.append(target)
            raw = " ".join(text[a.end : start].split())
            found.append(PendingRelation(a, target, predicate, raw, confidence, sentence))
    found += states(text, sentence, spans, all_spans, speaker, later=later)
    found += comentions(spans, related, sentence)
    return found


def _hint(span: Span, type_: EntityType | None) -> None:
    # Only a guess is overridden; acronyms ("LGBTQ") are too often not places/orgs.
    if (
        type_ is not None
        and span.type is T.CONCEPT
        and span.pronoun is None
        and not span.name.isupper()
    ):
        span.type = type_


def _unify_types(spans: list[Span]) -> None:
    """Within a chunk, a name guessed CONCEPT in one place takes the one specific
    type it got elsewhere ("Lyon" after "moved to" is the same Lyon later)."""
    specific: dict[str, set[EntityType]] = {}
    for span in spans:
        if span.type not in (T.CONCEPT, T.DATE) and span.pronoun is None:
            specific.setdefault(span_key(span), set()).add(span.type)
    for span in spans:
        types = specific.get(span_key(span))
        if span.type is T.CONCEPT and types and len(types) == 1:
            span.type = next(iter(types))


def _candidates(chunk: ChunkInput, set_aside: list[Span]) -> tuple[NameCandidate, ...]:
    out: dict[str, NameCandidate] = {}
    for span in set_aside:
        try:
            entity = Entity.create(
                span.name, span.type, namespace=chunk.namespace, seen=chunk.timestamp
            )
        except ValueError:
            continue
        mention = Mention(
            chunk_id=chunk.chunk_id,
            entity_id=entity.id,
            surface=span.surface,
            start=span.start,
            end=span.end,
        )
        out.setdefault(entity.id, NameCandidate(entity=entity, mention=mention))
    return tuple(out.values())


def _build(
    chunk: ChunkInput,
    text: str,
    speaker: str | None,
    sentences: list[Sentence],
    spans: list[Span],
    pending: list[PendingRelation],
) -> ChunkExtraction:
    ns, cid, seen = chunk.namespace, chunk.chunk_id, chunk.timestamp
    entities: dict[str, Entity] = {}
    mentions: dict[str, Mention] = {}
    span_ids: dict[int, str] = {}

    def entity_for(span: Span) -> str | None:
        if id(span) in span_ids:
            return span_ids[id(span)]
        try:
            entity = Entity.create(
                span.name,
                span.type,
                namespace=ns,
                identifier=span.identifier,
                aliases=[span.alias] if span.alias else (),
                seen=seen,
            )
        except ValueError:  # a name with no letters or digits: not an entity
            return None
        known = entities.get(entity.id)
        if known is None:
            entities[entity.id] = entity
        elif span.alias and span.alias not in known.aliases and span.alias != known.name:
            entities[entity.id] = known.model_copy(
                update={"aliases": tuple(sorted({*known.aliases, span.alias}))}
            )
        span_ids[id(span)] = entity.id
        return entity.id

    speaker_id = None
    if speaker:
        speaker_span = Span(-1, -1, speaker, speaker, T.PERSON)
        speaker_id = entity_for(speaker_span)
        if speaker_id:
            mentions[speaker_id] = Mention(chunk_id=cid, entity_id=speaker_id, surface=speaker)
    for span in spans:
        if span.pronoun is not None:
            span_ids[id(span)] = speaker_id or ""
            continue
        eid = entity_for(span)
        if eid is None:
            continue
        if eid in mentions:
            m = mentions[eid]
            mentions[eid] = m.model_copy(update={"count": m.count + 1})
        else:
            mentions[eid] = Mention(
                chunk_id=cid, entity_id=eid, surface=span.surface, start=span.start, end=span.end
            )

    relations: dict[str, Relation] = {}
    for p in pending:
        source, target = entity_for(p.source), entity_for(p.target)
        if not source or not target or source == target:
            continue
        date = p.sentence.dates[0] if p.sentence.dates else None
        rid = relation_id(ns, source, p.predicate, target, cid)
        if rid in relations and relations[rid].confidence >= p.confidence:
            continue
        relations[rid] = Relation(
            id=rid,
            source_id=source,
            target_id=target,
            predicate=p.predicate,
            raw_predicate=p.raw,
            context=context_text(text, p.sentence, speaker, p.source, p.target),
            confidence=p.confidence,
            time_text=date.text if date else None,
            timestamp=date.resolved.value if date and date.resolved else None,
            time_granularity=date.resolved.granularity if date and date.resolved else None,
            chunk_id=cid,
            namespace=ns,
            sentence_start=p.sentence.start,
        )
    events = sentence_events(chunk, text, speaker, speaker_id, sentences, span_ids)
    return ChunkExtraction(
        chunk_id=cid,
        namespace=ns,
        data_id=chunk.data_id,
        entities=tuple(entities.values()),
        relations=tuple(relations.values()),
        events=tuple(events),
        mentions=tuple(mentions.values()),
    )
