"""A reader bound to a ChunkFilter: every chunk search honours it (dense, BM25, by id
with neighbours, by title), so a lane built on the reader cannot leak what it excludes."""

from __future__ import annotations

import numpy as np

from recall_engine import Document
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader

TEXT = "The {team} team ships the harbour release on Friday. " * 3


async def test_every_chunk_search_honours_the_readers_filter(engine):
    for team in ("red", "blue"):
        doc = Document(text=TEXT.format(team=team), title=f"{team} notes", metadata={"team": team})
        await engine.remember(doc, dataset_name="notes")
    store = engine.store()
    dataset_ids = list(store.datasets())
    only_red = ChunkFilter(equals=((("team",), "red"),))
    everything = StoreReader(store, dataset_ids)
    red = StoreReader(store, dataset_ids, where=only_red)
    vector = engine.embedder.embed(["harbour release"])[0].astype(np.float32)

    def teams(hits):
        return {h.metadata["team"] for h in hits}

    assert teams(await everything.dense_chunks(vector, 10)) == {"red", "blue"}
    assert teams(await red.dense_chunks(vector, 10)) == {"red"}
    assert teams(await everything.lexical_chunks("harbour release", 10)) == {"red", "blue"}
    assert teams(await red.lexical_chunks("harbour release", 10)) == {"red"}
    ids = [h.chunk_id for h in await everything.dense_chunks(vector, 10)]
    assert teams(await red.chunks_by_id(ids, neighbours=2)) == {"red"}
    assert teams(await everything.titled_chunks("what do the Blue Notes say", 10)) == {"blue"}
    assert await red.titled_chunks("what do the Blue Notes say", 10) == []


def test_filters_combine_and_expiry_counts():
    a = ChunkFilter(equals=((("x",), 1),), alive_at=10.0)
    both = a.and_(ChunkFilter(equals=((("y",), 2),), alive_at=20.0))
    assert both.allows({"x": 1, "y": 2})
    assert not both.allows({"x": 1})
    assert not both.allows({"x": 1, "y": 2, "expires_at": 15.0})  # expired by 20
    assert both.allows({"x": 1, "y": 2, "expires_at": 25.0})
    assert a.and_(None) is a
