"""Query-time vector products on one BLAS thread.

A query's similarity to every stored row is one matrix-vector product (thousands of
rows by 384 dimensions): well under a millisecond on one core. OpenBLAS splits it
over every core, and on a busy machine its threads wait for each other: on two
loaded cores one such product took 7.8 ms of CPU time instead of 0.35 ms
(``docs/decisions.md``). ``similarities`` runs the product with the BLAS pool held
to one thread (``threadpoolctl``) and gives the pool back as it found it; calls from
several threads take turns, so each restores what it found.
"""

from __future__ import annotations

import threading
from functools import cache

import numpy as np
from threadpoolctl import ThreadpoolController

_LOCK = threading.Lock()


@cache
def _controller() -> ThreadpoolController:
    """The process's thread-pool controller, built once (it scans the loaded libraries)."""
    return ThreadpoolController()


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``matrix @ query`` computed on one BLAS thread (module docstring).

    Args:
        matrix: rows of vectors, float32.
        query: one vector of the rows' dimension.

    Returns:
        One similarity per row.
    """
    with _LOCK, _controller().limit(limits=1, user_api="blas"):
        return matrix @ query
