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


async def test_facts_and_edges_honour_the_readers_filter(engine):
    # Ann's pets are stated in a red and a blue note: a red-only reader must not
    # name the blue one through the facts an answer is read from, nor through an
    # entity's edges (metadata_filters answers offline from facts).
    for team, pet in (("red", "Luna"), ("blue", "Xylo")):
        doc = Document(text=f"Ann has a cat named {pet}.", metadata={"team": team})
        await engine.remember(doc, dataset_name="notes")
    store = engine.store()
    dataset_ids = list(store.datasets())
    red = StoreReader(store, dataset_ids, where=ChunkFilter(equals=((("team",), "red"),)))
    everything = StoreReader(store, dataset_ids)

    def objects(facts):
        return {f.object for f in facts}

    assert {"Luna", "Xylo"} <= objects(await everything.facts("Ann"))
    assert "Xylo" not in objects(await red.facts("Ann"))
    assert "Luna" in objects(await red.facts("Ann"))
    ann = [e.id for e in await red.entities_by_name(["Ann"])]
    pets = {e.name: e.id for e in await everything.entities_by_name(["Luna", "Xylo"])}

    async def targets(reader):
        return {e.target_id for e in await reader.edges_of(ann)}

    assert {pets["Luna"], pets["Xylo"]} <= await targets(everything)
    assert pets["Luna"] in await targets(red)
    assert pets["Xylo"] not in await targets(red)
