"""A follow-up hop's query vector from vectors the store already holds (opt-in).

The offline follow-up hop searches the question plus the text of its best new
evidence (``graph_rounds.offline_follow_up``). Embedding that text is a second
model pass per recall, as costly as the hop's graph search. When the evidence is
a stored chunk, its embedding is already in the store, so the hop's vector is
built from the two vectors at hand instead: the question's vector plus
``share`` times the chunk's, scaled back to unit length. The text searched
lexically is the same question-plus-evidence text. GRAPH_COMPLETION uses it with
``hop_vector_share``; the routed default does not (yet). What it keeps and costs, and
the shares tried: ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np

from recall_engine.core.hits import AnyHit, ChunkHit
from recall_engine.read.api import ReadAPI
from retrievers.graph_rounds import NextQuery, Query, Stop, best_new_evidence, hit_key
from retrievers.graph_search import GraphResult


def blend(question: np.ndarray, evidence: np.ndarray, share: float) -> np.ndarray | None:
    """``question + share * evidence`` at unit length.

    Args:
        question: the question's vector.
        evidence: the evidence's stored vector.
        share: the evidence's weight against the question's 1.

    Returns:
        The blended float32 vector, or None when the sum has no length.
    """
    total = (
        np.asarray(question, dtype=np.float64).ravel()
        + share * np.asarray(evidence, dtype=np.float64).ravel()
    )
    norm = float(np.linalg.norm(total))
    if norm == 0.0:
        return None
    return (total / norm).astype(np.float32)


async def evidence_vector(read: ReadAPI, evidence: AnyHit) -> np.ndarray | None:
    """The stored vector of ``evidence`` when it is a chunk in scope, else None.

    Args:
        read: the tenant's read API.
        evidence: a hit of an earlier round.

    Returns:
        The chunk's stored embedding, or None (not a chunk, or not stored).
    """
    if not isinstance(evidence, ChunkHit):
        return None
    return (await read.chunk_vectors([evidence.chunk_id])).get(evidence.chunk_id)


def stored_vector_follow_up(
    query: str, question_vector: np.ndarray, read: ReadAPI, share: float
) -> NextQuery:
    """``offline_follow_up(query)`` whose next query carries its vector.

    Args:
        query: the question.
        question_vector: the question's embedding (the first round's).
        read: the tenant's read API (the evidence's stored vector).
        share: the evidence's weight in the blend (``blend``).

    Returns:
        A next-query function: the question plus the best hit not used yet, as a
        ``Query`` with the blended vector when the hit is a stored chunk, else as
        text to embed; ``Stop`` when no hit is left.
    """

    async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | Query | Stop:
        if not merged.hits:
            return Stop("no_context")
        evidence = best_new_evidence(merged, used)
        if evidence is None:
            return Stop("converged")
        used.add(hit_key(evidence))
        text = f"{query} {evidence.text}"
        stored = await evidence_vector(read, evidence)
        vector = None if stored is None else blend(question_vector, stored, share)
        return text if vector is None else Query(text, vector)

    return follow_up
