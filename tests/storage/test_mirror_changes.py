"""How a chunk mirror follows a table that other processes write: ``chunk_changes``
on LanceDB at an s3:// URI (moto), and the ``ChunkIndex`` operations that apply
it (skip live ids, drop by chunk id)."""

from __future__ import annotations

import numpy as np
import pytest

from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.lance_vectors import LanceVectorStore
from recall_engine.storage.records import ChunkRecord
from tests.storage import moto_s3

DIM = 4


def chunk(cid: str, data_id: str, dataset: str = "ds1", text: str = "") -> ChunkRecord:
    return ChunkRecord(
        id=cid, data_id=data_id, dataset_id=dataset, dataset_name=f"name-{dataset}",
        chunk_index=0, text=text or f"text of {cid}", document_name=data_id, metadata={},
    )  # fmt: skip


def vectors(n: int) -> np.ndarray:
    return np.eye(n, DIM, dtype=np.float32)


def tokens(records: list[ChunkRecord]) -> list[list[str]]:
    return [r.text.split() for r in records]


@pytest.fixture
def table_pair() -> tuple[LanceVectorStore, LanceVectorStore]:
    """Two handles on one shared table: a writer and the reader whose mirror follows."""
    s3 = moto_s3.server()
    uri = f"{s3.fresh_uri()}/store"
    writer = LanceVectorStore(uri, DIM, storage_options=s3.options)
    return writer, LanceVectorStore(uri, DIM, storage_options=s3.options)


def test_changes_list_appends_deletions_and_rewrites(table_pair):
    writer, reader = table_pair
    first = [chunk("c1", "d1"), chunk("c2", "d2")]
    writer.add_chunks(first, vectors(2), tokens(first))
    state, changes = reader.chunk_changes(None)
    assert changes is not None and [r.id for r in changes.records] == ["c1", "c2"]
    assert changes.gone == frozenset() and changes.tokens == tokens(first)

    assert reader.chunk_changes(state) == (state, None)  # nothing new: one version request

    writer.add_chunks([chunk("c3", "d3")], vectors(1), [["three"]])
    writer.delete_data(["d1"])
    state, changes = reader.chunk_changes(state)
    assert changes is not None
    assert changes.gone == {"c1"} and [r.id for r in changes.records] == ["c3"]

    writer.delete_data(["d2"])  # forgotten, then remembered again: the same id comes back
    writer.add_chunks([chunk("c2", "d2", text="again")], vectors(1), [["again"]])
    state, changes = reader.chunk_changes(state)
    assert changes is not None
    assert changes.gone == {"c2"} and [r.text for r in changes.records] == ["again"]


def test_rows_the_mirror_holds_are_not_fetched_again(table_pair):
    writer, reader = table_pair
    rows = [chunk("c1", "d1"), chunk("c2", "d2")]
    writer.add_chunks(rows, vectors(2), tokens(rows))
    _, changes = reader.chunk_changes(None, have=lambda cid: cid == "c1")
    assert changes is not None and [r.id for r in changes.records] == ["c2"]


def test_the_index_skips_live_ids_and_drops_by_chunk_id():
    index = ChunkIndex(DIM)
    rows = [chunk("c1", "d1"), chunk("c2", "d1"), chunk("c3", "d2", "ds2")]
    index.add(rows, vectors(3), tokens(rows))
    index.add([rows[0], rows[0]], vectors(2), tokens([rows[0], rows[0]]))  # a replay
    assert len(index) == 3 and index.vectors.size == 3
    assert index.live_datasets() == {"ds1": "name-ds1", "ds2": "name-ds2"}

    assert index.remove_chunks(["c1", "c3", "nope"]) == 2
    assert [r.id for r in index.of_data("d1")] == ["c2"]
    assert not index.has_data("d2") and index.of_data("d2") == []
    assert index.live_datasets() == {"ds1": "name-ds1"}
    hits = index.search_lexical(["text"], 10)
    assert [r.id for r, _ in hits] == ["c2"]

    index.add([rows[0]], vectors(1), tokens([rows[0]]))  # gone, so it may come back
    assert sorted(r.id for r in index.records()) == ["c1", "c2"]
