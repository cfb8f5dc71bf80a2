"""The rest of the read API follows the reader's filter too: summaries of items it
splits, the latest message time, speakers, chunks by time and by node set, the
entities a chunk mentions, the nearest edges, whole items' chunks, and Cypher (which
cannot follow it, so refuses). Each is checked against a reader without a filter,
which reads as before."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.metadata import TURNS_KEY
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.tenant_reader import TenantReader
from tests.read.team_readers import ALLOWED_TEXT, EXCLUDED_TEXT, by_team

AS_OF = datetime(2024, 1, 1)
TEAM_A = ChunkFilter(equals=((("team",), "a"),))
FIRST = "Ada Lovelace works at Acme Corp in Boston."
LATER = "Boris Vance founded Zenith Labs in Oslo."


def _vector(engine: RecallEngine, text: str) -> np.ndarray:
    return engine.embedder.embed([text])[0].astype(np.float32)


async def _one_talk(engine: RecallEngine) -> tuple[TenantReader, list[TenantReader]]:
    """One conversation: Ann's turn (team "a", 2023), then Boris's (team "b", 2025);
    (a reader of everything, [a reader of team "a", one as of 2024])."""
    messages = [
        Message(id="m0", speaker="Ann", text=FIRST, timestamp=datetime(2023, 3, 1)),
        Message(id="m1", speaker="Boris", text=LATER, timestamp=datetime(2025, 3, 1)),
    ]
    teams = {TURNS_KEY: {"m0": {"team": "a"}, "m1": {"team": "b"}}}
    await engine.remember(Conversation(messages=messages, metadata=teams), dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    narrowed = [TenantReader(store, ids, where=TEAM_A), AsOfReader(store, ids, as_of=AS_OF)]
    return TenantReader(store, ids), narrowed


async def test_a_summary_of_an_item_the_filter_splits_is_rebuilt_from_what_it_passes(engine):
    # the stored summary names Boris and counts both turns: a reader that may not see
    # his turn (another team's, or said after as_of) is shown one of Ann's turn only,
    # citing it and scored by it
    everything, narrowed = await _one_talk(engine)
    vector = _vector(engine, LATER)
    (summary,) = await everything.nearest_summaries(vector, 5)
    assert "Boris" in summary.text and "(2 messages)" in summary.text
    (first,) = await everything.lexical_chunks(FIRST, 1)
    own = (await everything.chunk_vectors([first.chunk_id]))[first.chunk_id]
    for reader in narrowed:
        (seen,) = await reader.nearest_summaries(vector, 5)
        assert seen.text == f"Conversation between Ann (1 messages). Ann: {FIRST}"
        assert seen.method == "extractive-lead" and seen.id == summary.id
        assert [s.message_ids for s in seen.sources] == [["m0"]]
        assert seen.score == pytest.approx(float(np.dot(own, vector)), abs=1e-5)


async def test_a_summary_of_an_item_the_filter_passes_whole_is_shown(engine) -> None:
    everything, narrowed = await by_team(engine)
    vector = _vector(engine, ALLOWED_TEXT)
    found = await narrowed.nearest_summaries(vector, 5)
    assert found and found == [
        s for s in await everything.nearest_summaries(vector, 5) if s.text == ALLOWED_TEXT
    ]
    assert all(s.sources for s in found)


async def test_latest_message_time_and_speakers_are_of_the_chunks_the_filter_passes(engine):
    everything, narrowed = await _one_talk(engine)
    assert await everything.latest_message_time() == datetime(2025, 3, 1)
    assert await everything.speakers() == {"Ann", "Boris"}
    for reader in narrowed:
        assert await reader.latest_message_time() == datetime(2023, 3, 1)
        assert await reader.speakers() == {"Ann"}


async def test_chunks_between_give_k_that_the_filter_passes(engine) -> None:
    # both turns lie in the interval; the excluded one is the nearest and the first
    # in time order: k=1 still gives the one the filter passes
    messages = [
        Message(id="m0", speaker="Boris", text=LATER, timestamp=datetime(2023, 3, 1)),
        Message(id="m1", speaker="Ann", text=FIRST, timestamp=datetime(2023, 3, 2)),
    ]
    teams = {TURNS_KEY: {"m0": {"team": "b"}, "m1": {"team": "a"}}}
    await engine.remember(Conversation(messages=messages, metadata=teams), dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    everything, team_a = StoreReader(store, ids), StoreReader(store, ids, where=TEAM_A)
    span = (datetime(2023, 3, 1), datetime(2023, 4, 1))
    for vector in (None, _vector(engine, LATER)):
        every = await everything.chunks_between(*span, vector=vector, k=1)
        assert [h.message_ids for h in every] == [("m0",)]
        found = await team_a.chunks_between(*span, vector=vector, k=1)
        assert [h.message_ids for h in found] == [("m1",)]


async def test_chunks_in_node_sets_give_k_that_the_filter_passes(engine) -> None:
    for team, text in (("b", EXCLUDED_TEXT), ("a", ALLOWED_TEXT)):  # b's first
        doc = Document(text=text, metadata={"team": team})
        await engine.remember(doc, dataset_name="docs", node_set=["people"])
    store = engine.store()
    ids = list(store.datasets())
    everything, team_a = StoreReader(store, ids), StoreReader(store, ids, where=TEAM_A)
    for vector in (None, _vector(engine, EXCLUDED_TEXT)):
        (first,) = await everything.chunks_in_node_sets(["people"], vector=vector, k=1)
        assert first.text == EXCLUDED_TEXT
        (found,) = await team_a.chunks_in_node_sets(["people"], vector=vector, k=1)
        assert found.text == ALLOWED_TEXT


async def test_a_chunk_the_filter_excludes_mentions_nothing(engine) -> None:
    everything, narrowed = await by_team(engine)
    (excluded,) = await everything.lexical_chunks(EXCLUDED_TEXT, 1)
    (allowed,) = await everything.lexical_chunks(ALLOWED_TEXT, 1)
    asked = [allowed.chunk_id, excluded.chunk_id]
    every = await everything.mentioned_in(asked)
    assert every[excluded.chunk_id] and every[allowed.chunk_id]
    assert await narrowed.mentioned_in(asked) == {
        allowed.chunk_id: every[allowed.chunk_id],
        excluded.chunk_id: [],
    }


async def test_nearest_edges_give_k_that_the_filter_passes(engine) -> None:
    everything, narrowed = await by_team(engine)
    (allowed,) = await everything.lexical_chunks(ALLOWED_TEXT, 1)
    vector = _vector(engine, EXCLUDED_TEXT)
    every = await everything.nearest_edges(vector, 50)
    kept = [(e, s) for e, s in every if e.chunk_id == allowed.chunk_id]
    assert kept and every[: len(kept)] != kept  # the nearest are excluded ones
    assert await narrowed.nearest_edges(vector, len(kept)) == kept


async def test_chunks_of_data_are_those_the_filter_passes(engine) -> None:
    everything, narrowed = await _one_talk(engine)
    (first,) = await everything.lexical_chunks(FIRST, 1)
    assert len(await everything.chunks_of_data([first.data_id])) == 2
    for reader in narrowed:
        assert [h.message_ids for h in await reader.chunks_of_data([first.data_id])] == [("m0",)]


async def test_cypher_refuses_a_filter_it_cannot_keep_to(engine) -> None:
    everything, narrowed = await _one_talk(engine)
    query = "MATCH (c:Chunk) RETURN c.text"
    assert len((await everything.cypher(query)).rows) == 2
    for reader in narrowed:
        with pytest.raises(InvalidInputError, match="as_of or metadata_filters"):
            await reader.cypher(query)
    # expiry alone leaves out nothing Cypher could read (expired items are forgotten)
    store = engine.store()
    alive = StoreReader(store, list(store.datasets()), where=ChunkFilter(alive_at=0.0))
    assert len((await alive.cypher(query)).rows) == 2
    with pytest.raises(InvalidInputError, match="as_of or metadata_filters"):
        await engine.recall(query, query_type=SearchType.CYPHER, as_of=AS_OF)
