"""Sentences, their date phrases, and the events and context text built from them.

An event is recorded for a sentence with a resolvable date phrase, or for a
conversation turn's sentence that says something happened (an action verb in the
past tense, no question) - then at the message's time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import regex

from recall_engine.core.graph import EntityType, Event, event_id
from recall_engine.graph.dates import ResolvedTime
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.lexicon import NOT_PAST_EVENTS
from recall_engine.graph.rules_entities import Span

T = EntityType
MAX_CONTEXT_CHARS = 400

_PAST = regex.compile(
    r"\b(?:[a-z]{3,}ed|went|got|took|made|saw|met|came|began|bought|found"
    r"|gave|told|left|won|lost|wrote|built|became|ran|sang|spoke|drove|flew|ate|felt|heard"
    r"|kept|knew|learnt|read|said|sent|sold|spent|taught|thought|brought|caught|chose|drew"
    r"|fell|forgot|grew|held|led|rode|swam|threw|wore)\b",
    regex.I,
)


@dataclass(slots=True)
class DatePhrase:
    start: int
    end: int
    text: str
    resolved: ResolvedTime | None


@dataclass(slots=True)
class Sentence:
    start: int
    end: int
    spans: list[Span] = field(default_factory=list)
    dates: list[DatePhrase] = field(default_factory=list)


def sentence_events(
    chunk: ChunkInput,
    text: str,
    speaker: str | None,
    speaker_id: str | None,
    sentences: list[Sentence],
    span_ids: dict[int, str],
) -> list[Event]:
    events: list[Event] = []
    for index, sentence in enumerate(sentences):
        dated = next((d for d in sentence.dates if d.resolved is not None), None)
        body = text[sentence.start : sentence.end]
        if dated is None and not (speaker and chunk.timestamp and says_it_happened(sentence, body)):
            continue
        ids = [span_ids.get(id(s), "") for s in sentence.spans]
        if speaker_id and any(s.pronoun for s in sentence.spans):
            ids.append(speaker_id)
        time = dated.resolved if dated else None
        events.append(
            Event(
                id=event_id(chunk.namespace, chunk.chunk_id, index),
                text=context_text(text, sentence, speaker, None, None),
                time=time.value if time else chunk.timestamp,  # type: ignore[arg-type]
                time_text=dated.text if dated else None,
                time_granularity=time.granularity if time else "minute",
                entity_ids=tuple(dict.fromkeys(i for i in ids if i)),
                chunk_id=chunk.chunk_id,
                namespace=chunk.namespace,
            )
        )
    return events


def says_it_happened(sentence: Sentence, body: str) -> bool:
    """A statement (no question) with an action verb in the past tense ("was" and
    "had" are not actions) and someone doing it: the speaker or a named entity."""
    if body.rstrip().endswith("?") or not any(
        s.pronoun or s.type is not T.DATE for s in sentence.spans
    ):
        return False
    return any(m.group().lower() not in NOT_PAST_EVENTS for m in _PAST.finditer(body))


def context_text(
    text: str, sentence: Sentence, speaker: str | None, a: Span | None, b: Span | None
) -> str:
    """The sentence, readable alone: prefixed by the speaker in a conversation,
    and cut to a window around the pair when the sentence is very long."""
    start, end = sentence.start, sentence.end
    if end - start > MAX_CONTEXT_CHARS:
        anchors = [s.start for s in (a, b) if s is not None and s.start >= 0]
        left = max(start, (min(anchors) if anchors else start) - MAX_CONTEXT_CHARS // 4)
        start, end = left, min(end, left + MAX_CONTEXT_CHARS)
    body = " ".join(text[start:end].split())
    if (start, end) != (sentence.start, sentence.end):
        body = f"…{body}…"
    return f"{speaker}: {body}" if speaker else body
