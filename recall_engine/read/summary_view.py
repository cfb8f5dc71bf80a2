"""A data item's summary as a reader's filter sees it.

A stored summary restates its whole item (an LLM's all of it; an extractive one its
participants and length too), so where the filter passes only some of the item's
chunks (a conversation that goes on after ``as_of``, turns of another team) it is
rebuilt extractively from those chunks (``graph.summaries.extractive_summary``,
labelled ``extractive-lead``) and scored by them, never by what it left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recall_engine.graph.summaries import extractive_summary
from recall_engine.storage.records import ChunkRecord


def lead_of(chunks: Sequence[ChunkRecord]) -> str:
    """The extractive summary of an item's ``chunks`` (those a filter passes, in
    order): of their turns when they are a conversation's, else of their text.

    A turn is stored as ``[time] speaker: text`` (``ingest.chunking``); a turn cut in
    pieces is one turn again.
    """
    if not any(c.speaker or c.message_ids for c in chunks):
        return extractive_summary("\n".join(c.text for c in chunks))
    turns: list[tuple[str | None, str]] = []
    last: tuple[str, ...] | None = None
    for chunk in chunks:
        said = _said(chunk)
        if chunk.message_ids and chunk.message_ids == last:
            speaker, before = turns[-1]
            turns[-1] = (speaker, f"{before} {said}")
        else:
            turns.append((chunk.speaker, said))
        last = chunk.message_ids
    return extractive_summary(turns=turns)


def _said(chunk: ChunkRecord) -> str:
    """A turn's words without the time and speaker it is stored with."""
    text = chunk.text
    if chunk.timestamp and text.startswith("[") and "] " in text:
        text = text.split("] ", 1)[1]
    prefix = f"{chunk.speaker or 'unknown'}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def score_by(vector: np.ndarray, vectors: Sequence[np.ndarray]) -> float:
    """Cosine similarity of ``vector`` to the mean of ``vectors`` (the chunks a rebuilt
    summary restates); 0 when there are none."""
    if not vectors:
        return 0.0
    mean = np.mean(np.stack(vectors), axis=0)
    query = np.asarray(vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(mean) * np.linalg.norm(query))
    return float(np.dot(mean, query) / norm) if norm > 0 else 0.0
