"""Query-time vector products on one BLAS thread.

A query's similarity to every stored row is one matrix-vector product (thousands of
rows by 384 dimensions): well under a millisecond on one core. OpenBLAS splits it
over every core, and on a busy machine its threads wait for each other: on two
loaded cores one such product took 7.8 ms of CPU time instead of 0.35 ms
(``docs/decisions.md``). ``similarities`` runs the product with the BLAS pool held
to one thread and gives the pool back as it found it; calls from several threads
take turns, so each restores what it found. Without ``threadpoolctl`` (installed with
scikit-learn, which sentence-transformers requires) the product runs as before.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np


class _Pools(Protocol):
    """What is used of ``threadpoolctl.ThreadpoolController``."""

    def limit(self, *, limits: int, user_api: str) -> AbstractContextManager[object]: ...


_LOCK = threading.Lock()
_CONTROLLER: list[_Pools | None] = []  # built on first use


def _controller() -> _Pools | None:
    """The process's BLAS thread-pool controller, or None without threadpoolctl."""
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # optional: products then use the pool as configured
            _CONTROLLER.append(None)
        else:
            _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``matrix @ query`` computed on one BLAS thread (module docstring).

    Args:
        matrix: rows of vectors, float32.
        query: one vector of the rows' dimension.

    Returns:
        One similarity per row.
    """
    controller = _controller()
    if controller is None:
        return matrix @ query
    with _LOCK, controller.limit(limits=1, user_api="blas"):
        return matrix @ query
