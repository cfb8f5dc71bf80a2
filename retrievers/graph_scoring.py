"""Small numeric pieces of graph retrieval, as plain functions.

- ``personalized_pagerank``: PageRank with restarts to seed nodes, on an
  undirected weighted graph given as an edge list (power iteration).
- ``triplet_distance``: Cognee-style triplet distance, the sum of the vector
  distances of its two entities and of its own relation text, a miss costing
  the penalty.
- ``asking_share``: the share of a text's words in sentences that ask.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)


def personalized_pagerank(
    edges: Iterable[tuple[K, K, float]],
    seeds: Mapping[K, float],
    *,
    damping: float = 0.5,
    iterations: int = 30,
    tolerance: float = 1e-6,
) -> dict[K, float]:
    """Stationary visit probabilities of a walk that restarts at ``seeds`` (weights
    need not sum to 1) with probability ``1 - damping`` at each step. The graph is
    undirected; dangling mass returns to the seeds. Nodes not reachable get 0."""
    index: dict[K, int] = {}
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    for a, b, w in edges:
        if w <= 0:
            continue
        ia = index.setdefault(a, len(index))
        ib = index.setdefault(b, len(index))
        src += [ia, ib]
        dst += [ib, ia]
        weight += [w, w]
    for node in seeds:
        index.setdefault(node, len(index))
    n = len(index)
    if n == 0:
        return {}
    restart = np.zeros(n)
    for node, seed_weight in seeds.items():
        restart[index[node]] += max(seed_weight, 0.0)
    total = restart.sum()
    if total <= 0:
        return dict.fromkeys(index, 0.0)
    restart /= total
    s, d = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    weights = np.asarray(weight, dtype=np.float64)
    out_weight = np.bincount(s, weights=weights, minlength=n) if s.size else np.zeros(n)
    share = weights / out_weight[s] if s.size else weights
    rank = restart.copy()
    for _ in range(iterations):
        flow = np.bincount(d, weights=rank[s] * share, minlength=n) if s.size else np.zeros(n)
        dangling = rank[out_weight == 0].sum()
        new = (1 - damping) * restart + damping * (flow + dangling * restart)
        done = np.abs(new - rank).sum() < tolerance
        rank = new
        if done:
            break
    return {node: float(rank[i]) for node, i in index.items()}


def triplet_distance(
    source_distance: float | None,
    target_distance: float | None,
    edge_distance: float | None,
    *,
    penalty: float,
) -> float:
    """Distance of one triplet: its parts' cosine distances, ``penalty`` for each
    part the wide vector search did not return (None)."""
    return sum(
        penalty if d is None else d for d in (source_distance, target_distance, edge_distance)
    )


def normalised(scores: Mapping[K, float]) -> dict[K, float]:
    """Scores divided by the largest (all zero stays zero)."""
    top = max(scores.values(), default=0.0)
    return {k: (v / top if top > 0 else 0.0) for k, v in scores.items()}


_ANNOTATION = re.compile(r"\[[^\]]*\]")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


@functools.lru_cache(maxsize=8192)
def asking_share(text: str) -> float:
    """The share of a text's words in sentences that end with a question mark
    (bracketed annotations left out). Memoised: a graph search asks it of ~100
    candidate chunks per query, mostly the same chunks as the query before."""
    words = asked = 0
    for sentence in _SENTENCE.findall(_ANNOTATION.sub(" ", text)):
        n = len(sentence.split())
        words += n
        asked += n if sentence.rstrip().endswith("?") else 0
    return asked / words if words else 0.0
