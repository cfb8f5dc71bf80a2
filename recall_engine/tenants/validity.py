"""Current facts first: the tenant searches' results marked with what superseded them.

A chunk whose every one-value-at-a-time fact (home, job, a favourite, ...) was
replaced by a later statement is *superseded*: it stays in the results, after the
chunks that still hold, and its ``document_metadata`` says since when and by what
(``valid_from``, ``valid_until``, ``superseded_by``, ``superseded_by_chunk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from recall_engine.core.facts import Fact
from recall_engine.core.hydra import VectorStoreChunk

VALIDITY_KEYS = ("valid_from", "valid_until", "superseded_by", "superseded_by_chunk")


def superseded_mark(facts: Sequence[Fact], as_of: datetime | None = None) -> dict[str, str] | None:
    """What a chunk's metadata says when all its facts were superseded (by ``as_of``,
    when given); else None."""
    if not facts or any(f.current if as_of is None else f.valid_at(as_of) for f in facts):
        return None
    last = max(facts, key=lambda f: f.valid_until or datetime.min)
    later = ", ".join(
        dict.fromkeys(f"{r.predicate} {r.object}".strip() for f in facts for r in f.superseded_by)
    )
    mark = {
        "valid_from": last.valid_from.isoformat() if last.valid_from else "",
        "valid_until": last.valid_until.isoformat() if last.valid_until else "",
        "superseded_by": later,
        "superseded_by_chunk": last.superseded_by_chunk or "",
    }
    return {k: v for k, v in mark.items() if v}


def current_first(
    chunks: Sequence[VectorStoreChunk],
    validity: dict[str, list[Fact]],
    *,
    as_of: datetime | None = None,
    move: bool = True,
) -> list[VectorStoreChunk]:
    """``chunks`` with the superseded ones marked and moved after the others (each
    group keeps its order); with ``as_of``, superseded means replaced by then.

    Args:
        chunks: the ranked chunks.
        validity: chunk id -> the facts it states.
        as_of: the time the reply answers for (None: now).
        move: move superseded chunks after the others; False marks them in place
            (the tense stage ranked them for the question's time already).

    Returns:
        The chunks, superseded ones marked (``valid_until``, ``superseded_by``).
    """
    holding: list[VectorStoreChunk] = []
    replaced: list[VectorStoreChunk] = []
    for chunk in chunks:
        mark = superseded_mark(validity.get(chunk.chunk_uuid, []), as_of)
        if mark is None:
            holding.append(chunk)
            continue
        metadata = {**(chunk.document_metadata or {}), **mark}
        replaced.append(chunk.model_copy(update={"document_metadata": metadata}))
        if not move:
            holding.append(replaced.pop())
    return holding + replaced
