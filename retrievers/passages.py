"""The passage lane shared by HYBRID_COMPLETION and TEMPORAL: dense and BM25
chunk lists fused by reciprocal rank.

Kept as plain functions over the read API so each retriever composes the lane
with its own others (entities and facts; time-filtered chunks and events).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from pydantic import Field

from recall_engine.core.hits import ChunkHit
from recall_engine.read.api import ReadAPI
from retrievers.base import RetrieverConfig

T = TypeVar("T")


class PassageConfig(RetrieverConfig):
    """How the passage lane fuses its dense and lexical lists."""

    depth: int = Field(default=50, ge=1, le=1000, description="Candidates per list.")
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal-rank constant.")
    dense_weight: float = Field(default=1.0, ge=0.0)
    lexical_weight: float = Field(default=1.0, ge=0.0)


def fuse(
    lists: Sequence[Sequence[ChunkHit]], weights: Sequence[float], *, rrf_k: int
) -> list[ChunkHit]:
    """Weighted reciprocal-rank fusion of chunk lists; score = summed weight/(k + rank)."""
    scores: dict[str, float] = {}
    first: dict[str, ChunkHit] = {}
    for hits, weight in zip(lists, weights, strict=True):
        for rank, hit in enumerate(hits, start=1):
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + weight / (rrf_k + rank)
            first.setdefault(hit.chunk_id, hit)
    order = sorted(scores, key=lambda c: -scores[c])
    return [first[c].with_score(scores[c]) for c in order]


async def passage_lists(
    read: ReadAPI, vector: np.ndarray, query: str, depth: int
) -> tuple[list[ChunkHit], list[ChunkHit]]:
    """The dense and the BM25 candidate lists, ``depth`` each."""
    dense = await read.dense_chunks(vector, depth)
    lexical = await read.lexical_chunks(query, depth)
    return dense, lexical


async def passages(
    read: ReadAPI, vector: np.ndarray, query: str, k: int, options: PassageConfig
) -> list[ChunkHit]:
    """The ``k`` best chunks by fused dense and BM25 rank."""
    dense, lexical = await passage_lists(read, vector, query, max(options.depth, k))
    fused = fuse(
        [dense, lexical], [options.dense_weight, options.lexical_weight], rrf_k=options.rrf_k
    )
    return fused[:k]
