"""Relations, paths and summaries follow the reader's filter: one stated only in a
chunk the filter excludes (another team's notes, or later than ``as_of``) is none of
the reader's, and what comes back cites only chunks the filter passes. Without a
filter every read is as before."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.core.hits import TripletHit
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.tenant_reader import TenantReader
from tests.read.team_readers import ALLOWED_TEXT, EXCLUDED_TEXT, by_team

AS_OF = datetime(2024, 1, 1)


async def _by_time(engine: RecallEngine) -> tuple[StoreReader, TenantReader]:
    said = ((ALLOWED_TEXT, datetime(2023, 3, 1)), (EXCLUDED_TEXT, datetime(2025, 3, 1)))
    talks = [
        Conversation(messages=[Message(id=f"m{n}", speaker="Ann", text=text, timestamp=at)])
        for n, (text, at) in enumerate(said)
    ]
    await engine.remember(talks, dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    return StoreReader(store, ids), AsOfReader(store, ids, as_of=AS_OF)


@pytest.fixture(params=["metadata_filters", "as_of"])
async def readers(request, engine) -> tuple[StoreReader, TenantReader]:
    """(every chunk, a reader that excludes the chunk stating ``EXCLUDED_TEXT``)."""
    fill = by_team if request.param == "metadata_filters" else _by_time
    return await fill(engine)


async def _chunks(everything: StoreReader) -> tuple[str, str]:
    """(the allowed chunk, the excluded one)."""
    found = {}
    for text in (ALLOWED_TEXT, EXCLUDED_TEXT):
        (hit,) = await everything.lexical_chunks(text, 1)
        assert text in hit.text
        found[text] = hit.chunk_id
    return found[ALLOWED_TEXT], found[EXCLUDED_TEXT]


def _cited(hits: list[TripletHit]) -> set[str]:
    return {s.chunk_id for h in hits for s in h.sources}


def _vector(engine: RecallEngine, text: str) -> np.ndarray:
    return engine.embedder.embed([text])[0].astype(np.float32)


async def test_nearest_triplets_rest_on_chunks_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    allowed, excluded = await _chunks(everything)
    vector = _vector(engine, EXCLUDED_TEXT)
    every = await everything.nearest_triplets(vector, 50)
    assert {t.chunk_id for t in every} == {allowed, excluded}

    found = await narrowed.nearest_triplets(vector, 50)
    assert found == [t for t in every if t.chunk_id == allowed]
    assert _cited(found) == {allowed}


async def test_nearest_triplets_fill_k_from_the_relations_the_filter_passes(readers, engine):
    # the excluded chunk's relations are the nearest: asking for as many as the
    # allowed chunk states returns that many, not what is left after dropping them
    everything, narrowed = readers
    allowed, _ = await _chunks(everything)
    vector = _vector(engine, EXCLUDED_TEXT)
    every = await everything.nearest_triplets(vector, 50)
    kept = [t for t in every if t.chunk_id == allowed]
    assert every[: len(kept)] != kept  # the nearest are excluded ones
    assert await narrowed.nearest_triplets(vector, len(kept)) == kept


async def test_triplets_by_id_hold_only_relations_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    allowed, excluded = await _chunks(everything)
    every = await everything.nearest_triplets(_vector(engine, EXCLUDED_TEXT), 50)
    assert {t.chunk_id for t in every} == {allowed, excluded}
    ids = [t.id for t in every]
    assert [t.id for t in await everything.triplets_by_id(ids)] == ids

    found = await narrowed.triplets_by_id(ids)
    assert [t.id for t in found] == [t.id for t in every if t.chunk_id == allowed]
    assert _cited(found) == {allowed}


async def test_chunk_relations_only_of_chunks_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    allowed, excluded = await _chunks(everything)
    every = await everything.chunk_relations([allowed, excluded])
    assert set(every) == {allowed, excluded}

    found = await narrowed.chunk_relations([allowed, excluded])
    assert found == {allowed: every[allowed]}
    assert _cited(found[allowed]) == {allowed}


async def test_paths_walk_only_relations_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    allowed, excluded = await _chunks(everything)
    named = await everything.entities_by_name(["Ada Lovelace", "Oslo", "Boston"])
    ada, oslo, boston = (
        next(e.id for e in named if e.name == n) for n in ("Ada Lovelace", "Oslo", "Boston")
    )
    (to_oslo,) = await everything.paths([ada], [oslo])
    assert {e.chunk_id for e in to_oslo.edges} == {excluded}
    (to_boston,) = await everything.paths([ada], [boston])

    assert await narrowed.paths([ada], [oslo]) == []
    assert await narrowed.paths([ada], [boston]) == [to_boston]
    assert _cited(list(to_boston.edges)) == {allowed}


async def test_summaries_rest_on_documents_the_filter_passes(readers, engine) -> None:
    everything, narrowed = readers
    allowed, excluded = await _chunks(everything)
    vector = _vector(engine, EXCLUDED_TEXT)
    every = await everything.nearest_summaries(vector, 10)
    assert {s.sources[0].chunk_id for s in every} == {allowed, excluded}
    assert every[0].sources[0].chunk_id == excluded

    found = await narrowed.nearest_summaries(vector, 10)
    assert found == [s for s in every if s.sources[0].chunk_id == allowed]
    assert await narrowed.nearest_summaries(vector, 1) == found  # searched past the excluded
