"""A reader keeps its last dense search: the same vector asked again for as many or
fewer chunks (recall's coverage stage after a retriever's search) reads it instead of
scoring every chunk again, and a write to the store makes the next ask search again."""

from __future__ import annotations

import numpy as np

from recall_engine import Document
from recall_engine.read.store_reader import StoreReader


async def test_a_second_dense_ask_reuses_the_first_until_the_store_changes(engine, monkeypatch):
    for n in range(3):
        await engine.remember(
            Document(text=f"Harbour release {n} ships on Friday."), dataset_name="notes"
        )
    store = engine.store()
    reader = StoreReader(store, list(store.datasets()))
    searches: list[int] = []
    search_dense = store.index.search_dense

    def counted(query, k, *args, **kwargs):
        searches.append(k)
        return search_dense(query, k, *args, **kwargs)

    monkeypatch.setattr(store.index, "search_dense", counted)
    vector = engine.embedder.embed(["harbour release"])[0].astype(np.float32)
    first = await reader.dense_chunks(vector, 3)
    best = await reader.dense_chunks(vector.copy(), 1)
    assert searches == [3]
    assert [h.chunk_id for h in best] == [first[0].chunk_id]
    assert best[0].score == first[0].score
    await reader.dense_chunks(vector, 5)  # more than was kept: searched
    other = engine.embedder.embed(["something else"])[0].astype(np.float32)
    await reader.dense_chunks(other, 1)  # another vector: searched
    assert searches == [3, 5, 1]
    await engine.remember(Document(text="Harbour release 9 ships on Monday."), dataset_name="notes")
    fresh = StoreReader(store, list(store.datasets()))
    assert len(await fresh.dense_chunks(vector, 5)) == 4
    await reader.dense_chunks(other, 1)  # the store changed: searched again
    assert searches[-1] == 1 and len(searches) == 5
