"""The ``VectorStore`` contract: every implementation in ``contract_stores`` passes it."""

from __future__ import annotations

from typing import Any

import numpy as np

from recall_engine.storage.graph_records import ENTITIES, RELATIONS, VectorRows
from recall_engine.storage.records import ChunkRecord

DIM = 4


def chunk(cid: str, data_id: str, dataset_id: str, text: str) -> ChunkRecord:
    return ChunkRecord(
        id=cid, data_id=data_id, dataset_id=dataset_id, dataset_name=dataset_id,
        chunk_index=0, text=text, document_name=f"{data_id}.txt", metadata={"tag": "x"},
        message_ids=("m1",), speaker="Ann", timestamp="2024-01-01T00:00:00",
    )  # fmt: skip


CHUNKS = [
    chunk("c1", "d1", "ds1", "Ada Lovelace wrote the first program"),
    chunk("c2", "d2", "ds1", "Lyon is a city in France"),
    chunk("c3", "d3", "ds2", "Ada visited Lyon"),
]
VECTORS = np.eye(3, DIM, dtype=np.float32)
TOKENS = [c.text.lower().split() for c in CHUNKS]


def test_add_load_count_and_delete(vector_store: Any) -> None:
    assert vector_store.dimension == DIM and vector_store.count() == 0
    vector_store.add_chunks(CHUNKS, VECTORS, TOKENS)
    vector_store.add_chunks([], np.zeros((0, DIM), dtype=np.float32), [])
    assert vector_store.count() == 3 and vector_store.data_ids() == {"d1", "d2", "d3"}
    records, vectors, tokens, sentences = vector_store.load_chunks()
    assert records == CHUNKS and tokens == TOKENS
    np.testing.assert_allclose(vectors, VECTORS)
    assert [s.shape for s in sentences] == [(0, DIM)] * 3
    vector_store.delete_data(["d1", "nope"])
    assert vector_store.data_ids() == {"d2", "d3"} and vector_store.count() == 2


def test_sentence_vectors_round_trip(vector_store: Any) -> None:
    sentences = [np.eye(2, DIM, k=1, dtype=np.float32), np.zeros((0, DIM), np.float32)]
    sentences.append(np.ones((3, DIM), dtype=np.float32))
    vector_store.add_chunks(CHUNKS, VECTORS, TOKENS, sentences)
    records, _, _, loaded = vector_store.load_chunks()
    assert [r.id for r in records] == ["c1", "c2", "c3"]
    for got, want in zip(loaded, sentences, strict=True):
        np.testing.assert_allclose(got, want)


def test_graph_tables(vector_store: Any) -> None:
    tables = vector_store.graph
    rows = [
        {"id": "e1", "dataset_id": "ds1", "namespace": "n", "name": "Ada", "type": "PERSON"},
        {"id": "e2", "dataset_id": "ds1", "namespace": "n", "name": "Lyon", "type": "PLACE"},
    ]
    tables.add(VectorRows(ENTITIES, rows, np.eye(2, DIM, dtype=np.float32)))
    relation = {"id": "r1", "dataset_id": "ds1", "data_id": "d1", "source_id": "e1"}
    tables.add(VectorRows(RELATIONS, [relation], np.ones((1, DIM), dtype=np.float32)))
    assert tables.count(ENTITIES) == 2 and tables.column(ENTITIES, "id") == {"e1", "e2"}
    loaded, vectors = tables.load(ENTITIES)
    assert [r["name"] for r in loaded] == ["Ada", "Lyon"] and vectors.shape == (2, DIM)
    tables.delete_where(ENTITIES, "id", ["e1"])
    assert tables.column(ENTITIES, "id") == {"e2"}
    tables.delete_data(["d1"])
    assert tables.count(RELATIONS) == 0


def test_graph_table_changes(vector_store: Any) -> None:
    tables = vector_store.graph
    ada = {"id": "e1", "dataset_id": "ds1", "namespace": "n", "name": "Ada", "type": "PERSON"}
    lyon = {"id": "e2", "dataset_id": "ds1", "namespace": "n", "name": "Lyon", "type": "PLACE"}
    tables.add(VectorRows(ENTITIES, [ada], np.eye(1, DIM, dtype=np.float32)))
    state, changes = tables.changes(ENTITIES, None, have=lambda _: False)
    assert changes is not None and [r["name"] for r in changes.rows] == ["Ada"]
    assert changes.gone == frozenset() and changes.vectors.shape == (1, DIM)
    assert tables.changes(ENTITIES, state, have=lambda _: False) == (state, None)
    tables.add(VectorRows(ENTITIES, [lyon], np.eye(1, DIM, k=1, dtype=np.float32)))
    tables.delete_where(ENTITIES, "id", ["e1"])
    later, changes = tables.changes(ENTITIES, state, have=lambda _: False)
    assert changes is not None and changes.gone == {"e1"}
    assert [r["name"] for r in changes.rows] == ["Lyon"]
    tables.add(VectorRows(ENTITIES, [ada], np.eye(1, DIM, dtype=np.float32)))
    _, changes = tables.changes(ENTITIES, later, have=lambda row_id: row_id == "e1")
    assert changes is not None and changes.rows == []  # the mirror has it already
