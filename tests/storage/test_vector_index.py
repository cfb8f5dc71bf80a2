"""The one in-memory vector index that chunks and every graph table use."""

import numpy as np

from recall_engine.storage.vector_index import VectorIndex, dict_keys


def unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_search_is_exact_scoped_and_follows_removals() -> None:
    mirror = VectorIndex(3, dict_keys)
    rows = [
        {"id": "a", "dataset_id": "d1", "data_id": "x"},
        {"id": "b", "dataset_id": "d1", "data_id": "y"},
        {"id": "c", "dataset_id": "d2", "data_id": "x"},
    ]
    mirror.add(rows, np.vstack([unit(1, 0, 0), unit(1, 1, 0), unit(0, 0, 1)]))
    query = unit(1, 0.1, 0)
    assert [r["id"] for r, _ in mirror.search(query, 3)] == ["a", "b", "c"]
    assert [r["id"] for r, _ in mirror.search(query, 5, ["d2"])] == ["c"]
    assert mirror.search(query, 5, ["unknown"]) == []
    assert mirror.remove(data_ids=["x"]) == 2
    assert [r["id"] for r, _ in mirror.search(query, 3)] == ["b"]
    mirror.remove(ids=["b"])
    mirror.add([{"id": "b", "dataset_id": "d1"}], unit(0, 1, 0)[None, :])
    hits = mirror.search(query, 3)
    assert len(mirror) == 1 and hits[0][0]["id"] == "b"
    assert abs(hits[0][1] - float(unit(0, 1, 0) @ query)) < 1e-6


def test_growth_keeps_rows() -> None:
    mirror = VectorIndex(2, dict_keys)
    for i in range(600):
        mirror.add([{"id": str(i), "dataset_id": "d"}], unit(1.0, i / 600)[None, :])
    assert len(mirror) == 600
    assert mirror.search(unit(1, 0), 1)[0][0]["id"] == "0"


def test_top_k_breaks_ties_at_the_cut_by_row_order():
    """Rows tied with the k-th score: the earliest rows make the cut, whatever k is, so
    a longer list starts with a shorter one (argpartition alone kept an arbitrary one)."""
    from recall_engine.storage.vector_index import top_k

    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(1, 80))
        scores = rng.integers(0, 3, n).astype(np.float64)
        rows = rng.permutation(4 * n)[:n]
        full = [(int(rows[i]), float(scores[i])) for i in np.lexsort((rows, -scores))]
        for k in (1, 5, 10, 50):
            assert top_k(scores, rows, k) == full[:k]
