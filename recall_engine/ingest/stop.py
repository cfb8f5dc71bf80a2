"""Stopping a write that runs in a worker thread, at its safe points.

A thread cannot be interrupted, so a write (``ingest``, ``forget``) checks a
``threading.Event`` between its steps instead: before each embedding window
(``StoppingEmbedder``) and right before its commit (``check_stop``). Set before
the commit, the flag stops the write with ``WriteStopped`` and nothing of it is
stored; once the commit has begun, the write completes. The engine sets the flag
when the task awaiting the write is cancelled or the engine closes
(``engine.write_threads``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from recall_engine.embedding import Embedder, WrappedEmbedder


class WriteStopped(Exception):
    """A write stopped at a safe point before its commit: nothing of it is stored."""


def check_stop(stop: threading.Event | None) -> None:
    """Raise ``WriteStopped`` when ``stop`` is set (None: the write cannot be stopped).

    Raises:
        WriteStopped: the flag is set.
    """
    if stop is not None and stop.is_set():
        raise WriteStopped("The write was stopped before its commit; nothing of it was stored.")


class StoppingEmbedder(WrappedEmbedder):
    """An embedder that checks a stop flag before each call to the one it wraps.

    Args:
        inner: the embedder wrapped.
        stop: the write's stop flag; None never stops.
    """

    def __init__(self, inner: Embedder, stop: threading.Event | None) -> None:
        super().__init__(inner)
        self.stop = stop

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """The inner embedder's vectors, unless the write was stopped.

        Raises:
            WriteStopped: the stop flag is set.
        """
        check_stop(self.stop)
        return self.inner.embed(texts, batch_size=batch_size)
