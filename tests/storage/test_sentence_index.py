"""A chunk's dense score counts its best sentence (``storage.sentence_index``)."""

from __future__ import annotations

import lancedb
import numpy as np
import pyarrow as pa

from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.lance_vectors import CHUNKS, SENTENCES, LanceVectorStore, chunk_schema
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.sentence_index import SentenceVectors


def _records(n: int, dataset: str = "a") -> list[ChunkRecord]:
    return [
        ChunkRecord(
            id=f"{dataset}-{i}", data_id=f"d{i}", dataset_id=dataset, dataset_name=dataset,
            chunk_index=0, text=f"text {i}", document_name="doc",
        )
        for i in range(n)
    ]  # fmt: skip


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    v = rng.normal(size=(n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_blend_is_the_mean_of_chunk_and_best_sentence_similarity() -> None:
    rng = np.random.default_rng(1)
    chunks = _unit(rng, 60, 8)
    per_row = [_unit(rng, int(rng.integers(0, 4)), 8) for _ in range(60)]
    index = SentenceVectors(8)
    index.add(0, per_row[:25])
    index.add(25, per_row[25:])
    query = _unit(rng, 1, 8)[0]
    rows = np.sort(rng.choice(60, size=30, replace=False))
    got = index.blend(query, rows, chunks[rows] @ query)
    for at, row in enumerate(rows):
        own = float(chunks[row] @ query)
        want = own if len(per_row[row]) == 0 else (own + float((per_row[row] @ query).max())) / 2
        assert abs(got[at] - want) < 1e-6


def test_a_chunk_whose_one_sentence_answers_outranks_a_closer_average() -> None:
    answer, other = np.eye(2, 4, dtype=np.float32)
    mixed = (0.5 * answer + other) / np.linalg.norm(0.5 * answer + other)  # cos 0.45
    near = np.array([0.6, 0.8, 0, 0], dtype=np.float32)  # cos 0.6, one sentence
    records = _records(2)
    index = ChunkIndex(4)
    index.add(records, np.stack([mixed, near]), [["a"], ["b"]])
    assert [r.id for r, _ in index.search_dense(answer, 2)] == ["a-1", "a-0"]

    index = ChunkIndex(4)
    none = np.zeros((0, 4), dtype=np.float32)
    index.add(records, np.stack([mixed, near]), [["a"], ["b"]], [np.stack([answer, other]), none])
    ranked = index.search_dense(answer, 2)
    assert [r.id for r, _ in ranked] == ["a-0", "a-1"]
    assert abs(ranked[0][1] - (float(mixed @ answer) + 1) / 2) < 1e-6
    assert abs(ranked[1][1] - 0.6) < 1e-6  # one sentence: its own similarity


def test_skipped_duplicates_keep_sentences_aligned_with_their_chunks() -> None:
    rng = np.random.default_rng(2)
    index = ChunkIndex(8)
    records = _records(3)
    vectors = _unit(rng, 3, 8)
    sentences = [_unit(rng, 2, 8), _unit(rng, 0, 8), _unit(rng, 3, 8)]
    index.add(records[:1], vectors[:1], [["x"]], sentences[:1])
    index.add(records, vectors, [["x"]] * 3, sentences)  # a-0 is live: skipped
    query = sentences[2][1]
    got = dict((r.id, s) for r, s in index.search_dense(query, 3))
    assert abs(got["a-2"] - (float(vectors[2] @ query) + 1) / 2) < 1e-6
    assert abs(got["a-1"] - float(vectors[1] @ query)) < 1e-6
    best_of_a0 = float((sentences[0] @ query).max())
    assert abs(got["a-0"] - (float(vectors[0] @ query) + best_of_a0) / 2) < 1e-6


def test_a_table_made_before_sentence_vectors_gains_the_column(tmp_path) -> None:
    old = pa.schema([f for f in chunk_schema(4) if f.name != SENTENCES])
    db = lancedb.connect(str(tmp_path / "vectors"))
    row = {f.name: None for f in old}
    row.update(id="c0", data_id="d0", dataset_id="a", dataset_name="a", chunk_index=0,
               text="old", document_name="doc", metadata_json="{}", message_ids=[],
               created_at="", tokens=["old"], vector=[1.0, 0.0, 0.0, 0.0])  # fmt: skip
    db.create_table(CHUNKS, data=pa.Table.from_pylist([row], schema=old))

    store = LanceVectorStore(tmp_path / "vectors", 4)
    (record,), _, _, (sentences,) = store.load_chunks()
    assert record.id == "c0" and sentences.shape == (0, 4)
    assert store.data_ids_without_sentences(["d0"]) == {"d0"}  # remember() stores it again
    new = _records(1)
    store.add_chunks(
        new, np.eye(1, 4, dtype=np.float32), [["new"]], [np.eye(2, 4, dtype=np.float32)]
    )
    records, _, _, loaded = LanceVectorStore(tmp_path / "vectors", 4).load_chunks()
    assert [r.id for r in records] == ["c0", "a-0"]
    assert [s.shape for s in loaded] == [(0, 4), (2, 4)]


def test_chunks_whose_sentences_were_never_computed_are_found_by_data_id(tmp_path) -> None:
    store = LanceVectorStore(tmp_path / "vectors", 4)
    records = _records(4)
    one = np.eye(1, 4, dtype=np.float32)
    # d0: two sentence vectors; d1: a chunk of one sentence (computed, none to store)
    store.add_chunks(
        records[:2], np.eye(2, 4, dtype=np.float32), [["a"], ["b"]],
        [np.eye(2, 4, dtype=np.float32), np.zeros((0, 4), dtype=np.float32)],
    )  # fmt: skip
    store.add_chunks(records[2:], np.vstack([one, one]), [["c"], ["d"]], None)  # not computed
    assert store.data_ids_without_sentences(["d0", "d1", "d2", "d3", "zz"]) == {"d2", "d3"}
    assert store.data_ids_without_sentences(["d0", "d1"]) == set()
    assert store.data_ids_without_sentences([]) == set()
    _, _, _, loaded = store.load_chunks()
    assert [s.shape for s in loaded] == [(2, 4), (0, 4), (0, 4), (0, 4)]
