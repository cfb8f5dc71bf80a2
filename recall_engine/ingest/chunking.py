"""Split source items into chunks.

Documents: sentence-aware packing under a token budget, with whole trailing
sentences repeated as overlap. A token here is a word or a punctuation mark,
which tracks the embedding model's word pieces closely enough for budgeting.
Conversations: one chunk per message; speaker and time prefix the text.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from recall_engine.core.models import Message
from recall_engine.ingest.sources import SourceItem

_TOKEN = regex.compile(r"\w+|[^\w\s]")
# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and an
# uppercase letter, digit or quote; common abbreviations do not end sentences.
_ABBREVIATIONS = (
    "mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|e\\.g|i\\.e|inc|ltd|co|corp|no|fig|approx|dept|est|mt"
)
_SENTENCE_END = regex.compile(
    rf"(?<!\b(?:{_ABBREVIATIONS}))(?<!\b\p{{Lu}})[.!?]+[\"'”’)\]]*\s+(?=[\p{{Lu}}\p{{N}}\"'“‘(\[])",
    regex.IGNORECASE,
)
# Blank lines, and the line breaks around a markdown heading, end a paragraph.
_PARAGRAPH = regex.compile(r"\n\s*\n|\n(?=\s{0,3}#{1,6}\s)|(?<=^\s{0,3}#{1,6}\s[^\n]*)\n", regex.M)


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before ids and vectors: display text, texts to embed and to index, provenance."""

    text: str
    embed_text: str
    lexical_text: str
    message_ids: tuple[str, ...] = ()
    speaker: str | None = None
    timestamp: str | None = None


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def split_sentences(text: str) -> list[str]:
    """Split text into sentences; paragraph breaks always end a sentence."""
    sentences: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        start = 0
        for match in _SENTENCE_END.finditer(paragraph):
            sentences.append(paragraph[start : match.end()].strip())
            start = match.end()
        if start < len(paragraph):
            sentences.append(paragraph[start:].strip())
    return [s for s in sentences if s]


def _split_long(sentence: str, budget: int) -> list[str]:
    """Cut a sentence longer than the budget at token boundaries."""
    words = sentence.split()
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for word in words:
        cost = max(1, count_tokens(word))
        if current and used + cost > budget:
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(word)
        used += cost
    if current:
        pieces.append(" ".join(current))
    return pieces


def chunk_text(text: str, *, chunk_size: int, chunk_overlap: int) -> list[str]:
    """Pack sentences into chunks of at most ``chunk_size`` tokens.

    Each chunk after the first starts with the last whole sentences of the one
    before, up to ``chunk_overlap`` tokens.
    """
    units: list[tuple[str, int]] = []
    for sentence in split_sentences(text):
        cost = count_tokens(sentence)
        if cost > chunk_size:
            units.extend((p, count_tokens(p)) for p in _split_long(sentence, chunk_size))
        else:
            units.append((sentence, cost))
    chunks: list[str] = []
    current: list[tuple[str, int]] = []
    used = 0
    fresh = 0  # sentences in `current` not already emitted as overlap
    for sentence, cost in units:
        if current and used + cost > chunk_size and fresh:
            chunks.append(" ".join(s for s, _ in current))
            carried: list[tuple[str, int]] = []
            carried_cost = 0
            for prev, prev_cost in reversed(current):
                if (
                    carried_cost + prev_cost > chunk_overlap
                    or carried_cost + prev_cost + cost > chunk_size
                ):
                    break
                carried.insert(0, (prev, prev_cost))
                carried_cost += prev_cost
            current, used, fresh = carried, carried_cost, 0
        current.append((sentence, cost))
        used += cost
        fresh += 1
    if current and fresh:
        chunks.append(" ".join(s for s, _ in current))
    return chunks


def _format_time(message: Message) -> str | None:
    if message.timestamp is None:
        return None
    return message.timestamp.isoformat()


def message_chunk(message: Message) -> ChunkDraft:
    """One conversation turn as a chunk: ``[time] speaker: text``."""
    speaker = message.speaker or "unknown"
    stamp = message.timestamp.strftime("%Y-%m-%d %H:%M") if message.timestamp else None
    spoken = f"{speaker}: {message.text.strip()}"
    text = f"[{stamp}] {spoken}" if stamp else spoken
    return ChunkDraft(
        text=text,
        # A sentence-like form embeds closer to questions about what someone said or did
        # (LoCoMo dev, dense recall@10: 52.7 vs 51.0 for "speaker: text").
        embed_text=f"{speaker} said: {message.text.strip()}",
        lexical_text=spoken,
        message_ids=(message.id,) if message.id else (),
        speaker=message.speaker,
        timestamp=_format_time(message),
    )


def chunk_item(item: SourceItem, *, chunk_size: int, chunk_overlap: int) -> list[ChunkDraft]:
    """Chunks of one source item, in order."""
    if item.messages is not None:
        return [message_chunk(m) for m in item.messages]
    assert item.text is not None
    stamp = item.created_at.isoformat() if item.created_at else None
    return [
        ChunkDraft(text=piece, embed_text=piece, lexical_text=piece, timestamp=stamp)
        for piece in chunk_text(item.text, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    ]
