"""Query-time similarities: the matrix-vector product, the same rows on top, computed
on the calling thread without touching numpy's BLAS pool."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import threadpoolctl

from recall_engine.storage import similarities as similarities_module
from recall_engine.storage.similarities import RUN_ROWS, similarities, similarities_at


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


def _runs(*ranges: tuple[int, int]) -> np.ndarray:
    return np.concatenate([np.arange(a, b) for a, b in ranges]).astype(np.int64)


@pytest.mark.parametrize(
    "rows",
    [
        _runs((0, 3000)),  # the whole matrix
        _runs((400, 1700)),  # one dataset's rows, stored together
        _runs((0, 300), (900, 1500), (2990, 3000)),  # a few runs
        np.arange(0, 3000, 7),  # scattered, a seventh of the rows
        np.arange(0, 3000, 2),  # scattered, half the rows: every row is scored
        np.array([2999]),
        np.array([0, 1, 5]),
        np.array([], dtype=np.int64),
    ],
    ids=["all", "one-run", "few-runs", "sparse", "dense", "last", "tiny", "none"],
)
def test_rows_are_scored_as_if_copied_out(rows: np.ndarray) -> None:
    # Rows past the scored ones (an index's spare capacity) hold anything.
    matrix = np.vstack([unit_rows(3000, 13), np.full((500, 384), np.nan, np.float32)])
    query = unit_rows(1, 14)[0]
    found = similarities_at(matrix, rows, query)
    assert found.dtype == np.float32 and found.shape == rows.shape
    assert found.tolist() == similarities(matrix[rows], query).tolist()


def test_runs_are_scored_where_they_lie(monkeypatch: pytest.MonkeyPatch) -> None:
    matrix, query = unit_rows(3000, 15), unit_rows(1, 16)[0]
    rows = _runs((100, 100 + 4 * RUN_ROWS), (2000, 2000 + 4 * RUN_ROWS))
    scored: list[bool] = []

    def recording(part: np.ndarray, q: np.ndarray) -> np.ndarray:
        scored.append(np.shares_memory(part, matrix))  # a view, not a copy
        return similarities(part, q)

    monkeypatch.setattr(similarities_module, "similarities", recording)
    found = similarities_at(matrix, rows, query)
    assert scored == [True, True]
    assert found.tolist() == similarities(matrix[rows], query).tolist()
