"""Recency as a ranking signal, shared by ``recall()`` and the tenant API.

Among the relevant pool (the items scoring at least ``RELEVANT_SHARE`` of the
best, at most ``POOL`` of them), each score becomes
``(1 - r) * relevance + r * recency``, relevance being the score over the best and
recency the item's time min-max normalised over the pool (an item without a time
counts as the oldest). ``r = 1`` puts the newest relevant item first, ``r = 0``
leaves the ranking untouched; what lies below the pool keeps its place after it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

POOL = 100
# The passage lane sums two lists each normalised to [0, 1] (plus the title bonus),
# so a chunk that one list alone ranks half-way between its best and its floor
# scores a quarter of one that both rank first: still relevant, as half the best
# was on a single [0, 1] blend.
RELEVANT_SHARE = 0.25

T = TypeVar("T")


def apply_recency(
    ranked: Sequence[tuple[T, float]], bias: float, time_of: Callable[[T], float | None]
) -> list[tuple[T, float]]:
    """``ranked`` (item, score) pairs, best first, re-scored and re-ordered by recency.

    ``time_of`` gives an item's time in epoch seconds (None: unknown). Unchanged
    when ``bias`` is 0 or no item of the pool has a time.
    """
    if bias <= 0 or not ranked:
        return list(ranked)
    best = ranked[0][1]
    floor = RELEVANT_SHARE * best
    pool = [r for r in ranked[:POOL] if r[1] >= floor] if best > 0 else list(ranked[:POOL])
    rest = list(ranked[len(pool) :])
    times = [time_of(item) for item, _ in pool]
    known = [t for t in times if t is not None]
    if not known:
        return list(ranked)
    low, high = min(known), max(known)
    span = high - low
    rescored = []
    for (item, score), when in zip(pool, times, strict=True):
        recency = 0.0 if when is None else ((when - low) / span if span > 0 else 1.0)
        relevance = score / best if best > 0 else 0.0
        rescored.append((item, (1 - bias) * relevance + bias * recency))
    rescored.sort(key=lambda r: -r[1])
    return rescored + rest
