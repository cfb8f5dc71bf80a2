"""An entity's provenance follows the reader's filter: its mentions and the sources it
cites are only chunks the filter passes, and an entity stated only where the filter
excludes (another team's notes, or later than ``as_of``) is no entity of the reader."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.tenant_reader import TenantReader
from tests.read.team_readers import ALLOWED_TEXT, EXCLUDED_TEXT, by_team

SHARED = "Ada Lovelace"  # stated in both chunks
HIDDEN = ("Zenith Labs", "Boris Vance", "Oslo")  # stated only in the excluded one


async def _by_time(engine: RecallEngine) -> tuple[StoreReader, TenantReader]:
    messages = [
        Message(id="m0", speaker="Ann", text=ALLOWED_TEXT, timestamp=datetime(2023, 3, 1)),
        Message(id="m1", speaker="Ann", text=EXCLUDED_TEXT, timestamp=datetime(2025, 3, 1)),
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    return StoreReader(store, ids), AsOfReader(store, ids, as_of=datetime(2024, 1, 1))


@pytest.fixture(params=["metadata_filters", "as_of"])
async def readers(request, engine) -> tuple[StoreReader, TenantReader]:
    """(every chunk, a reader that excludes the chunk stating the hidden entities)."""
    fill = by_team if request.param == "metadata_filters" else _by_time
    return await fill(engine)


async def _excluded_chunk(everything: StoreReader) -> str:
    (boris,) = await everything.entities_by_name(["Boris Vance"])
    (chunk,) = (await everything.mentions([boris.id]))[boris.id]
    return chunk


async def test_mentions_follow_the_readers_filter(readers) -> None:
    everything, narrowed = readers
    excluded = await _excluded_chunk(everything)
    named = {e.name: e.id for e in await everything.entities_by_name([SHARED, *HIDDEN])}
    assert set(named) == {SHARED, *HIDDEN}
    assert excluded in (await everything.mentions([named[SHARED]]))[named[SHARED]]

    found = await narrowed.mentions(list(named.values()))
    assert set(found) == {named[SHARED]}  # the hidden ones are mentioned nowhere it may look
    assert found[named[SHARED]] and excluded not in found[named[SHARED]]


async def test_entities_by_name_cite_only_what_the_filter_passes(readers) -> None:
    everything, narrowed = readers
    excluded = await _excluded_chunk(everything)
    (ada,) = await everything.entities_by_name([SHARED])
    assert excluded in {s.chunk_id for s in ada.sources}

    found = await narrowed.entities_by_name([SHARED, *HIDDEN])
    assert [e.name for e in found] == [SHARED]
    (ada,) = found
    assert ada.sources and excluded not in {s.chunk_id for s in ada.sources}


async def test_nearest_entities_hold_only_entities_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    excluded = await _excluded_chunk(everything)
    vector = engine.embedder.embed([EXCLUDED_TEXT])[0].astype(np.float32)
    every_ref = {r.name for r, _ in await everything.nearest_entity_refs(vector, 50)}
    assert set(HIDDEN) <= every_ref

    refs = [r.name for r, _ in await narrowed.nearest_entity_refs(vector, 50)]
    assert SHARED in refs and not set(HIDDEN) & set(refs)
    hits = await narrowed.nearest_entities(vector, 50)
    assert SHARED in {h.name for h in hits} and not set(HIDDEN) & {h.name for h in hits}
    assert all(h.sources and excluded not in {s.chunk_id for s in h.sources} for h in hits)


async def test_nearest_entity_refs_fill_k_from_the_entities_the_filter_passes(readers, engine):
    # the hidden entities are the nearest: asking for as many as the allowed chunk
    # states still returns that many, not what is left after dropping the nearest
    everything, narrowed = readers
    vector = engine.embedder.embed([" ".join(HIDDEN)])[0].astype(np.float32)
    allowed = [r for r, _ in await narrowed.nearest_entity_refs(vector, 50)]
    assert len(allowed) < len(await everything.nearest_entity_refs(vector, 50))
    assert len(await narrowed.nearest_entity_refs(vector, len(allowed))) == len(allowed)
    assert len(await narrowed.nearest_entities(vector, len(allowed))) == len(allowed)
