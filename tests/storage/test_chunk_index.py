import numpy as np

from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.records import ChunkRecord


def _records(n, dataset="a", data="d"):
    return [
        ChunkRecord(
            id=f"{dataset}-{i}",
            data_id=f"{data}{i % 3}",
            dataset_id=dataset,
            dataset_name=dataset,
            chunk_index=i,
            text=f"text {i}",
            document_name="doc",
        )
        for i in range(n)
    ]


def _unit(rng, n, d):
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_dense_search_is_exact_top_k_in_score_order():
    rng = np.random.default_rng(0)
    vectors = _unit(rng, 500, 16)
    index = ChunkIndex(16)
    index.add(_records(500), vectors, [["t"]] * 500)
    query = _unit(rng, 1, 16)[0]
    hits = index.search_dense(query, 10)
    expected = np.argsort(-(vectors @ query))[:10]
    assert [r.chunk_index for r, _ in hits] == list(expected)
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)


def test_scope_and_removal_are_respected():
    rng = np.random.default_rng(1)
    index = ChunkIndex(8)
    index.add(_records(20, "a", "x"), _unit(rng, 20, 8), [["alpha"]] * 20)
    index.add(_records(20, "b", "y"), _unit(rng, 20, 8), [["alpha"]] * 20)
    query = _unit(rng, 1, 8)[0]
    assert {r.dataset_id for r, _ in index.search_dense(query, 40, ["b"])} == {"b"}
    assert {r.dataset_id for r, _ in index.search_lexical(["alpha"], 40, ["a"])} == {"a"}
    assert index.search_dense(query, 5, ["unknown"]) == []
    removed = index.remove_data(["x0", "x1"])
    assert removed == 14
    remaining = {r.data_id for r, _ in index.search_dense(query, 40, ["a"])}
    assert remaining == {"x2"}
    assert len(index) == 26


def test_growth_beyond_initial_capacity_keeps_rows():
    rng = np.random.default_rng(2)
    index = ChunkIndex(4)
    for batch in range(3):
        index.add(_records(700, f"s{batch}"), _unit(rng, 700, 4), [["w"]] * 700)
    assert len(index) == 2100
    assert len(index.records(["s1"])) == 700


def test_an_items_siblings_are_in_chunk_order_and_follow_every_change():
    rng = np.random.default_rng(1)
    index = ChunkIndex(8)
    records = _records(12)  # chunks 0, 3, 6, 9 are item d0's
    order = [9, 3, 0, 6, 1, 2, 4, 5, 7, 8, 10, 11]  # added out of chunk order
    index.add([records[i] for i in order], _unit(rng, 12, 8), [["t"]] * 12)
    first = index.siblings("d0")
    assert [r.chunk_index for r in first.chunks] == [0, 3, 6, 9]
    assert first.place == {"a-0": 0, "a-3": 1, "a-6": 2, "a-9": 3}
    assert index.siblings("d0") is first  # kept while the item is unchanged
    assert [r.id for r in index.of_data("d0")] == ["a-0", "a-3", "a-6", "a-9"]

    later = ChunkRecord(
        id="a-12", data_id="d0", dataset_id="a", dataset_name="a", chunk_index=1,
        text="text 12", document_name="doc",
    )  # fmt: skip
    index.add([later], _unit(rng, 1, 8), [["t"]])
    assert [r.id for r in index.siblings("d0").chunks] == ["a-0", "a-12", "a-3", "a-6", "a-9"]
    index.remove_chunks(["a-3"])
    assert index.siblings("d0").place == {"a-0": 0, "a-12": 1, "a-6": 2, "a-9": 3}
    index.remove_data(["d0"])
    assert index.siblings("d0").chunks == ()
    assert [r.chunk_index for r in index.siblings("d1").chunks] == [1, 4, 7, 10]
    assert index.siblings("unknown").chunks == ()
