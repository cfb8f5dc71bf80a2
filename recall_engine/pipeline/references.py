"""The references step: an ``Evidence:`` block under a plain-text answer.

3 to 5 bullets, one per chunk behind the answer, chosen by how many of the
answer's terms each chunk holds (rank order breaks ties; the best-ranked
chunks fill up to three), each chunk once:

    Evidence:
    - chunk 0 of document handbook.md (data_id: ..., chunk_id: ...): "snippet"

A snippet starts at the chunk's sentence that shares most terms with the answer,
is whitespace-collapsed and at most ``SNIPPET_CHARS`` long, with ``...`` where it
was cut.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex

from recall_engine.core.hits import AnyHit, ChunkHit, dedupe_sources
from recall_engine.core.models import ResponseGraphEntry, SourceRef
from recall_engine.read.api import ReadAPI
from recall_engine.storage.lexical import tokenize

MIN_BULLETS, MAX_BULLETS = 3, 5
SNIPPET_CHARS = 160
_SENTENCE = regex.compile(r"(?<=[.!?])\s+")


def snippet(text: str, terms: set[str]) -> str:
    """The part of ``text`` to quote: collapsed, from its best sentence, <= 160 chars."""
    flat = " ".join(text.split())
    starts = [0] + [m.end() for m in _SENTENCE.finditer(flat)]
    best = max(starts, key=lambda s: (len(terms & set(tokenize(_sentence_at(flat, s)))), -s))
    out = ("..." if best > 0 else "") + flat[best:]
    if len(out) > SNIPPET_CHARS:
        out = out[: SNIPPET_CHARS - 3].rstrip() + "..."
    return out


def _sentence_at(flat: str, start: int) -> str:
    match = _SENTENCE.search(flat, start)
    return flat[start : match.start() if match else len(flat)]


def choose(
    refs: Sequence[SourceRef], texts: dict[str, str], answer: str
) -> list[tuple[SourceRef, str]]:
    """The chunks to cite, best first, with their snippets."""
    terms = set(tokenize(answer))
    scored = [
        (len(terms & set(tokenize(texts[r.chunk_id]))), rank, r)
        for rank, r in enumerate(refs)
        if r.chunk_id in texts
    ]
    by_overlap = sorted(scored, key=lambda t: (-t[0], t[1]))
    chosen = [t for t in by_overlap if t[0] > 0][:MAX_BULLETS]
    for t in sorted(scored, key=lambda t: t[1]):
        if len(chosen) >= MIN_BULLETS:
            break
        if t not in chosen:
            chosen.append(t)
    return [(r, snippet(texts[r.chunk_id], terms)) for _, _, r in chosen]


def bullet(ref: SourceRef, quote: str) -> str:
    return (
        f"- chunk {ref.chunk_index} of document {ref.document_name} "
        f'(data_id: {ref.data_id}, chunk_id: {ref.chunk_id}): "{quote}"'
    )


async def add_evidence(entry: ResponseGraphEntry, hits: Sequence[AnyHit], read: ReadAPI) -> None:
    """Append the Evidence block to ``entry.text`` (and list it in
    ``metadata["references"]``); nothing when no chunk stands behind the answer."""
    refs = dedupe_sources(hits)
    texts = {h.chunk_id: h.text for h in hits if isinstance(h, ChunkHit)}
    missing = [r.chunk_id for r in refs if r.chunk_id not in texts]
    if missing:
        texts.update({h.chunk_id: h.text for h in await read.chunks_by_id(missing)})
    chosen = choose(refs, texts, entry.text)
    if not chosen:
        return
    entry.text = entry.text.rstrip() + "\n\nEvidence:\n" + "\n".join(bullet(*c) for c in chosen)
    entry.metadata["references"] = [
        {**ref.model_dump(include={"data_id", "chunk_id", "chunk_index", "document_name"}),
         "snippet": quote}
        for ref, quote in chosen
    ]  # fmt: skip
