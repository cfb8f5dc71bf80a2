"""One fusion component: ranked candidate lists (or aligned score lanes) joined
into one score per chunk, by a named join mode.

In the spirit of Haystack's ``DocumentJoiner(join_mode=...)``:

- ``"weighted"``: each list's scores are normalised to [0, 1] and summed with
  the list's weight (``alpha`` and ``1 - alpha`` for a two-lane blend). This keeps
  how far apart the candidates are.
- ``"reciprocal_rank"``: each list adds ``weight / (rrf_k + rank)``; only the
  order of a list counts.

Both recall()'s passage lane and the tenant API's hybrid search fuse here, so
``alpha`` means the same thing wherever it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np

from recall_engine.core.errors import InvalidInputError

JoinMode = Literal["weighted", "reciprocal_rank"]
Normalise = Literal["min_max", "by_best", "none"]
JOIN_MODES: tuple[JoinMode, ...] = ("weighted", "reciprocal_rank")
RRF_K = 60


class Scored(Protocol):
    """What a ranked list's items need for fusion: a chunk id and a score
    (a ``ChunkHit``, or a ``read.api.ChunkPlace``)."""

    @property
    def chunk_id(self) -> str: ...

    @property
    def score(self) -> float: ...


def normalise(values: np.ndarray, how: Normalise = "min_max") -> np.ndarray:
    """Scores mapped to [0, 1]. ``min_max``: best 1, worst 0 (all equal: 1).
    ``by_best``: divided by the best (no positive score: all 0). ``none``: as given."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or how == "none":
        return values
    if how == "by_best":
        best = float(values.max())
        return values / best if best > 0 else np.zeros_like(values)
    low, span = float(values.min()), float(values.max() - values.min())
    return (values - low) / span if span > 0 else np.ones_like(values)


def alpha_weights(alpha: float) -> tuple[float, float]:
    """The (dense, lexical) weights of a two-lane blend: ``alpha`` and ``1 - alpha``."""
    if not 0.0 <= alpha <= 1.0:
        raise InvalidInputError(f"alpha must be between 0 and 1, got {alpha}")
    return alpha, 1.0 - alpha


def _check(mode: str, weights: Sequence[float]) -> None:
    if mode not in JOIN_MODES:
        raise InvalidInputError(f"join mode must be one of {', '.join(JOIN_MODES)}, got {mode!r}")
    if any(w < 0 for w in weights):
        raise InvalidInputError("join weights must not be negative")


def join(
    lists: Sequence[Sequence[Scored]],
    weights: Sequence[float],
    mode: JoinMode = "weighted",
    *,
    rrf_k: int = RRF_K,
) -> dict[str, float]:
    """One score per chunk id from ranked lists (each best first), by ``mode``."""
    _check(mode, weights)
    scores: dict[str, float] = {}
    for hits, weight in zip(lists, weights, strict=True):
        if mode == "weighted":
            values = normalise(np.array([h.score for h in hits], dtype=np.float64))
            gains = {h.chunk_id: float(v) for h, v in zip(hits, values, strict=True)}
        else:
            gains = {}
            for rank, h in enumerate(hits, start=1):
                gains.setdefault(h.chunk_id, 1.0 / (rrf_k + rank))
        for chunk_id, gain in gains.items():
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight * gain
    return scores
