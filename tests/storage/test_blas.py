"""Query-time similarities on one BLAS thread: the same products, the pool given back."""

from __future__ import annotations

import threading
from typing import ClassVar

import numpy as np
import threadpoolctl

from recall_engine.storage.blas import similarities


def blas_threads() -> list[int]:
    """The thread counts of numpy's BLAS pools (every BLAS pool when none is numpy's own:
    a library loaded later, such as scipy's OpenBLAS, is not the one numpy multiplies with)."""
    pools = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    own = [p for p in pools if "numpy" in p["filepath"]]
    return [p["num_threads"] for p in own or pools]


def test_similarities_are_the_matrix_vector_product() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((3000, 384)).astype(np.float32)
    query = rng.standard_normal(384).astype(np.float32)
    assert np.allclose(similarities(matrix, query), matrix @ query, rtol=1e-5, atol=1e-5)
    assert similarities(matrix[:0], query).shape == (0,)


def test_the_blas_pool_is_given_back_as_it_was_even_from_several_threads() -> None:
    before = blas_threads()
    rng = np.random.default_rng(8)
    matrix = rng.standard_normal((2000, 384)).astype(np.float32)
    query = rng.standard_normal(384).astype(np.float32)

    def ask() -> None:
        for _ in range(20):
            similarities(matrix, query)

    workers = [threading.Thread(target=ask) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert blas_threads() == before


class _Spy(np.ndarray):
    """An array that records the BLAS pools' sizes while it is multiplied."""

    seen: ClassVar[list[list[int]]] = []

    def __matmul__(self, other):  # type: ignore[override]
        _Spy.seen.append(blas_threads())
        return np.asarray(self) @ other


def test_the_product_runs_while_blas_is_held_to_one_thread() -> None:
    matrix = np.ones((50, 8), dtype=np.float32).view(_Spy)
    similarities(matrix, np.ones(8, dtype=np.float32))
    assert _Spy.seen and all(n == 1 for n in _Spy.seen[-1])
