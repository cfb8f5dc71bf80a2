"""Query-time similarities on one BLAS thread: the same products, the pool given back."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from recall_engine.storage.blas import similarities

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_threads() -> list[int]:
    return [
        pool["num_threads"]
        for pool in threadpoolctl.threadpool_info()
        if pool["user_api"] == "blas"
    ]


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
