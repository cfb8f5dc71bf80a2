"""``ChunkFilter.stated_by``: the time bound of ``as_of`` as a filter field, so that a
reader applies it as it applies metadata and expiry (its mask and ``allows``)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from recall_engine import Conversation, Message
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader

BOUND = datetime(2024, 1, 1, tzinfo=UTC).timestamp()


def test_a_chunk_stated_later_is_left_out_and_one_of_unknown_time_passes():
    bound = ChunkFilter(stated_by=BOUND)
    assert bound.allows({}, stated="2023-12-31T23:59:59")
    assert bound.allows({}, stated=datetime(2024, 1, 1))  # at the bound: stated by then
    assert not bound.allows({}, stated="2024-01-01T00:00:01")
    assert not bound.allows({}, stated=datetime(2025, 1, 1, tzinfo=UTC))
    assert bound.allows({}) and bound.allows({}, stated="not a time")  # unknown time
    assert not bound.narrows  # it tests no metadata
    assert ChunkFilter().allows({}, stated="2099-01-01")  # no bound


def test_stated_by_combines_with_the_other_fields():
    team = ChunkFilter(equals=((("team",), "a"),), stated_by=BOUND + 10)
    both = team.and_(ChunkFilter(stated_by=BOUND))
    assert both.stated_by == BOUND  # the earlier bound holds
    assert both.equals == team.equals
    assert ChunkFilter(stated_by=BOUND).and_(ChunkFilter()).stated_by == BOUND
    assert not both.allows({"team": "a"}, stated="2024-06-01")
    assert not both.allows({"team": "b"}, stated="2023-06-01")
    assert both.allows({"team": "a"}, stated="2023-06-01")


async def test_a_reader_bound_by_stated_by_searches_only_what_was_stated_by_then(engine):
    messages = [
        Message(
            id="m0",
            speaker="Ann",
            text="The harbour release ships.",
            timestamp=datetime(2023, 3, 1),
        ),
        Message(
            id="m1",
            speaker="Ann",
            text="The harbour release slipped.",
            timestamp=datetime(2025, 3, 1),
        ),
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    then = StoreReader(store, ids, where=ChunkFilter(stated_by=BOUND))
    vector = engine.embedder.embed(["harbour release"])[0].astype(np.float32)

    def said(hits):
        return {m for h in hits for m in h.message_ids}

    everything = StoreReader(store, ids)
    assert said(await everything.dense_chunks(vector, 10)) == {"m0", "m1"}
    assert said(await then.dense_chunks(vector, 10)) == {"m0"}
    assert said(await then.lexical_chunks("harbour release", 10)) == {"m0"}
    every_id = [h.chunk_id for h in await everything.dense_chunks(vector, 10)]
    assert said(await then.chunks_by_id(every_id, neighbours=2)) == {"m0"}
