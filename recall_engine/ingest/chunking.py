"""Split source items into chunks.

Documents: sentence-aware packing under a token budget, with whole trailing
sentences repeated as overlap. Conversations: one chunk per message; speaker
and time prefix the text, and a message over the budget is cut like a document.

The budget holds whatever the script. A token is estimated the way the
embedding model's word pieces fall: a CJK ideograph, kana or Hangul syllable
is one token each (the model's tokenizer splits them so), a punctuation mark
is one, a word of up to 12 characters is one, and a longer run (base64, minified
JSON, an identifier) costs one per 4 characters. A chunk is also never longer
than ``MAX_CHARS_PER_TOKEN`` characters per token of budget, so no input, a
5 MB one-letter word included, yields a chunk over the budget.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import regex

from recall_engine.core.models import Message
from recall_engine.ingest.sources import SourceItem

_WIDE = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_TOKEN = regex.compile(rf"[{_WIDE}]|[^\s\p{{P}}\p{{S}}{_WIDE}]+|[^\s{_WIDE}]")
SHORT_WORD_CHARS = 12
LONG_WORD_CHARS_PER_TOKEN = 4
MAX_CHARS_PER_TOKEN = 8
"""Hard cap: a chunk of budget ``n`` holds at most ``8 * n`` characters."""
# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and an
# uppercase letter, digit or quote; common abbreviations do not end sentences. A run of
# marks is tried from its first mark (or its second, when an abbreviation blocks the
# first) and never given back: a long run of "." with no sentence after it costs its
# length once, not its length squared.
_ABBREVIATIONS = (
    "mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|e\\.g|i\\.e|inc|ltd|co|corp|no|fig|approx|dept|est|mt"
)
_SENTENCE_END = regex.compile(
    rf"(?<!\b(?:{_ABBREVIATIONS}))(?<!\b\p{{Lu}})(?<![.!?]{{2}})"
    rf"[.!?]++[\"'”’)\]]*+\s++(?=[\p{{Lu}}\p{{N}}\"'“‘(\[])"
    # CJK full stops end a sentence with or without a following space.
    r"|[。！？]+[」』”’）)]*\s*",
    regex.IGNORECASE,
)
# Blank lines, and the line breaks around a markdown heading, end a paragraph.
_PARAGRAPH = regex.compile(r"\n\s*\n|\n(?=\s{0,3}#{1,6}\s)|(?<=^\s{0,3}#{1,6}\s[^\n]*)\n", regex.M)

# The heading's words are the line less its closing spaces and "#"s, stripped in Python:
# a lazy group before ``[ \t#]*$`` rescans a long run of "#" at every step.
_HEADING = regex.compile(r"^[ ]{0,3}#{1,6}[ \t]+([^\n]*)$", regex.M)


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before ids and vectors: display text, texts to embed and to index, provenance."""

    text: str
    embed_text: str
    lexical_text: str
    message_ids: tuple[str, ...] = ()
    speaker: str | None = None
    timestamp: str | None = None
    extract_text: str | None = None
    """What graph extraction reads when it differs from ``text`` (a turn's own words)."""
    embed_sentences: tuple[str, ...] = ()
    """Each sentence of a chunk of two or more, labelled as ``embed_text`` is: the
    chunk's dense score also counts its best sentence (``storage.sentence_index``)."""


def labelled_sentences(label: str, body: str) -> tuple[str, ...]:
    """``label + sentence`` for each sentence of ``body``; empty for one sentence
    (the chunk's own vector is that sentence's).

    Sentences that ask are kept: the graph search demotes turns that ask on its own
    (``retrievers.graph_search``), and leaving them out here cost the routed default
    more than it gave dense search (``docs/decisions.md``).
    """
    sentences = split_sentences(body)
    return tuple(label + s for s in sentences) if len(sentences) > 1 else ()


def _cost(token: str) -> int:
    if len(token) <= SHORT_WORD_CHARS:
        return 1
    return math.ceil(len(token) / LONG_WORD_CHARS_PER_TOKEN)


def count_tokens(text: str) -> int:
    """Estimated tokens of ``text`` for the embedding model (see the module docstring)."""
    return sum(_cost(m.group()) for m in _TOKEN.finditer(text))


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


def _atoms(sentence: str, budget: int) -> Iterator[tuple[str, int, str]]:
    """(text, cost, glue) per token, a run longer than the budget cut into slices;
    glue is what separated it from the previous atom in ``sentence``."""
    step = budget * LONG_WORD_CHARS_PER_TOKEN
    last = 0
    for match in _TOKEN.finditer(sentence):
        glue = sentence[last : match.start()]
        token = match.group()
        last = match.end()
        if len(token) <= step:
            yield token, _cost(token), glue
            continue
        for start in range(0, len(token), step):
            piece = token[start : start + step]
            yield piece, _cost(piece), glue if start == 0 else ""


def _split_long(sentence: str, budget: int) -> list[str]:
    """Cut a sentence over the budget (in tokens or characters) at token
    boundaries, and inside a run of characters too long for one chunk."""
    max_chars = budget * MAX_CHARS_PER_TOKEN
    pieces: list[str] = []
    current: list[str] = []
    used = chars = 0
    for token, cost, glue in _atoms(sentence, budget):
        size = len(token) + len(glue)
        if current and (used + cost > budget or chars + size > max_chars):
            pieces.append("".join(current))
            current, used, chars, glue = [], 0, 0, ""
        current.append((" " if glue else "") + token if current else token)
        used += cost
        chars += len(current[-1])
    if current:
        pieces.append("".join(current))
    return pieces


def _units(text: str, budget: int) -> list[tuple[str, int]]:
    """Sentences of ``text`` with their costs, each within the budget."""
    max_chars = budget * MAX_CHARS_PER_TOKEN
    units: list[tuple[str, int]] = []
    for sentence in split_sentences(text):
        cost = count_tokens(sentence)
        if cost > budget or len(sentence) > max_chars:
            units.extend((p, count_tokens(p)) for p in _split_long(sentence, budget))
        else:
            units.append((sentence, cost))
    return units


def chunk_text(text: str, *, chunk_size: int, chunk_overlap: int) -> list[str]:
    """Pack sentences into chunks of at most ``chunk_size`` tokens (and
    ``MAX_CHARS_PER_TOKEN * chunk_size`` characters).

    Each chunk after the first starts with the last whole sentences of the one
    before, up to ``chunk_overlap`` tokens.
    """
    max_chars = chunk_size * MAX_CHARS_PER_TOKEN
    chunks: list[str] = []
    current: list[tuple[str, int]] = []
    used = chars = 0
    fresh = 0  # sentences in `current` not already emitted as overlap
    for sentence, cost in _units(text, chunk_size):
        size = len(sentence) + 1
        if current and (used + cost > chunk_size or chars + size > max_chars + 1) and fresh:
            chunks.append(" ".join(s for s, _ in current))
            carried: list[tuple[str, int]] = []
            carried_cost = carried_chars = 0
            for prev, prev_cost in reversed(current):
                if (
                    carried_cost + prev_cost > chunk_overlap
                    or carried_cost + prev_cost + cost > chunk_size
                    or carried_chars + len(prev) + 1 + size > max_chars + 1
                ):
                    break
                carried.insert(0, (prev, prev_cost))
                carried_cost += prev_cost
                carried_chars += len(prev) + 1
            current, used, chars, fresh = carried, carried_cost, carried_chars, 0
        current.append((sentence, cost))
        used += cost
        chars += size
        fresh += 1
    if current and fresh:
        chunks.append(" ".join(s for s, _ in current))
    return chunks


def _format_time(message: Message) -> str | None:
    if message.timestamp is None:
        return None
    return message.timestamp.isoformat()


def message_chunks(message: Message, *, chunk_size: int) -> list[ChunkDraft]:
    """One conversation turn as chunks: ``[time] speaker: text``, one chunk
    unless the turn is over the budget (then each piece carries the turn's id)."""
    speaker = message.speaker or "unknown"
    stamp = message.timestamp.strftime("%Y-%m-%d %H:%M") if message.timestamp else None
    said = message.text.strip()
    budget = max(1, chunk_size - count_tokens(f"[{stamp}] {speaker} said:"))
    if count_tokens(said) <= budget and len(said) <= budget * MAX_CHARS_PER_TOKEN:
        pieces = [said]
    else:
        pieces = chunk_text(said, chunk_size=budget, chunk_overlap=0)
    drafts = []
    for piece in pieces:
        spoken = f"{speaker}: {piece}"
        drafts.append(
            ChunkDraft(
                text=f"[{stamp}] {spoken}" if stamp else spoken,
                # A sentence-like form embeds closer to questions about what someone said
                # or did than "speaker: text" (docs/decisions.md).
                embed_text=f"{speaker} said: {piece}",
                embed_sentences=labelled_sentences(f"{speaker} said: ", piece),
                lexical_text=spoken,
                message_ids=(message.id,) if message.id else (),
                speaker=message.speaker,
                timestamp=_format_time(message),
                extract_text=piece,
            )
        )
    return drafts


def message_chunk(message: Message) -> ChunkDraft:
    """One conversation turn as one chunk, whatever its length (see ``message_chunks``)."""
    (draft,) = message_chunks(message, chunk_size=1 << 30)
    return draft


def heading_sections(text: str) -> list[tuple[str | None, str]]:
    """``text`` cut at markdown headings: (the heading's words or None, the section,
    heading line included). Text without headings is one section."""
    starts = [m.start() for m in _HEADING.finditer(text)]
    if not starts:
        return [(None, text)]
    bounds = [0, *starts] if starts[0] > 0 else starts
    out: list[tuple[str | None, str]] = []
    for at, end in zip(bounds, [*bounds[1:], len(text)], strict=True):
        section = text[at:end]
        match = _HEADING.match(section)
        heading = " ".join(match.group(1).rstrip(" \t#").split()) if match else None
        if section.strip():
            out.append((heading, section))
    return out


def _title(item: SourceItem) -> str | None:
    """The item's title, unless its name is only the text's opening words."""
    assert item.text is not None
    name = " ".join(item.name.split()).removesuffix("...").strip()
    if not name or " ".join(item.text[: 4 * len(name) + 16].split()).startswith(name):
        return None
    return name


def chunk_item(item: SourceItem, *, chunk_size: int, chunk_overlap: int) -> list[ChunkDraft]:
    """Chunks of one source item, in order.

    A document's chunks are embedded and indexed with its title and their section
    heading in front ("Ulm > History: text"), so a chunk is found by what its page
    is about even when its own words do not say it; the chunk text shown is unchanged.
    """
    if item.messages is not None:
        return [d for m in item.messages for d in message_chunks(m, chunk_size=chunk_size)]
    assert item.text is not None
    stamp = item.created_at.isoformat() if item.created_at else None
    title = _title(item)
    drafts = []
    for heading, section in heading_sections(item.text):
        about = _label(" > ".join(x for x in (title, heading) if x), chunk_size // 2)
        # The label counts against the budget (at most half of it), as a turn's speaker does.
        budget = max(chunk_size // 2, chunk_size - count_tokens(about) - 1) if about else chunk_size
        for piece in chunk_text(section, chunk_size=budget, chunk_overlap=chunk_overlap):
            label = f"{about}: " if about else ""
            drafts.append(
                ChunkDraft(
                    text=piece,
                    embed_text=label + piece,
                    embed_sentences=labelled_sentences(label, piece),
                    lexical_text=label + piece,
                    timestamp=stamp,
                )
            )
    return drafts


def _label(about: str, tokens: int) -> str:
    """``about`` cut to what ``tokens`` tokens can hold (``MAX_CHARS_PER_TOKEN`` each),
    at a space where there is one: every chunk of the section carries it, so a heading
    line of 100,000 characters would cost each chunk its length."""
    limit = MAX_CHARS_PER_TOKEN * tokens
    if len(about) <= limit:
        return about
    cut = about[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" >")
