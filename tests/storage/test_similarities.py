"""Query-time similarities: the matrix-vector product, the same rows on top, computed
on the calling thread without touching numpy's BLAS pool."""

from __future__ import annotations

import threading

import numpy as np
import threadpoolctl

from recall_engine.storage.similarities import similarities


def unit_rows(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, 384)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_similarities_are_the_matrix_vector_product() -> None:
    matrix, query = unit_rows(3000, 7), unit_rows(1, 8)[0]
    found = similarities(matrix, query)
    assert found.dtype == np.float32 and found.shape == (3000,)
    assert np.allclose(found, matrix @ query, rtol=0, atol=1e-6)
    assert similarities(matrix[:0], query).shape == (0,)
    assert similarities(matrix[[5, 1]], query).tolist() == found[[5, 1]].tolist()


def test_the_nearest_rows_are_those_of_the_blas_product() -> None:
    matrix = unit_rows(5000, 9)
    for query in unit_rows(20, 10):
        ours, blas = similarities(matrix, query), matrix @ query
        assert np.argsort(-ours)[:100].tolist() == np.argsort(-blas)[:100].tolist()


def test_the_blas_pool_is_left_as_it_is_from_several_threads() -> None:
    before = [p["num_threads"] for p in threadpoolctl.threadpool_info()]
    matrix, query = unit_rows(2000, 11), unit_rows(1, 12)[0]
    expected = similarities(matrix, query)
    results: list[np.ndarray] = []

    def ask() -> None:
        for _ in range(20):
            results.append(similarities(matrix, query))

    workers = [threading.Thread(target=ask) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(results) == 80 and all(np.array_equal(r, expected) for r in results)
    assert [p["num_threads"] for p in threadpoolctl.threadpool_info()] == before
