"""Stores made before 2026-12-07 kept a LanceDB full-text index on the chunks' text
that no read used; the first purge after a forget drops it, so no purge rewrites it."""

from __future__ import annotations

from lancedb.index import FTS

from recall_engine.storage.lance_vectors import LanceVectorStore
from tests.storage.test_vector_contract import CHUNKS, DIM, TOKENS, VECTORS


def test_a_purge_drops_the_old_full_text_index(tmp_path) -> None:
    store = LanceVectorStore(tmp_path / "vectors", DIM)
    store.add_chunks(CHUNKS, VECTORS, TOKENS)
    store._chunks.create_index("text", config=FTS(), replace=True)  # as older stores did
    assert any("text" in i.columns for i in store._chunks.list_indices())
    store.delete_data([CHUNKS[0].data_id])
    store.purge_deleted()
    assert not any("text" in i.columns for i in store._chunks.list_indices())
    assert store.count() == len(CHUNKS) - sum(c.data_id == CHUNKS[0].data_id for c in CHUNKS)
