"""Events follow the reader's filter: an event stated in a chunk the filter excludes
(another team's notes, or said after ``as_of``, whatever time it happened at) is none
of the reader's, so a TEMPORAL recall scoped to team "a" or ``as_of`` neither lists it
nor ranks by it. Without a filter every read is as before."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.hits import EventHit
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.tenant_reader import TenantReader

# the excluded one happened first: the first in time order, and the nearest to its text
ALLOWED = "Ada Lovelace visited the harbour museum in Boston on 3 March 2023."
EXCLUDED = "Ada Lovelace visited the glacier park in Oslo on 1 March 2023."
AS_OF = datetime(2024, 1, 1)
MARCH = (datetime(2023, 3, 1), datetime(2023, 4, 1))


async def _by_team(engine: RecallEngine) -> dict[str, object]:
    await engine.remember(
        [
            Document(text=ALLOWED, title="alpha", metadata={"team": "a"}),
            Document(text=EXCLUDED, title="beta", metadata={"team": "b"}),
        ],
        dataset_name="docs",
    )
    return {"metadata_filters": {"team": "a"}}


async def _by_time(engine: RecallEngine) -> dict[str, object]:
    # the excluded visit happened before as_of, and was told of only after it
    said = ((ALLOWED, datetime(2023, 3, 10)), (EXCLUDED, datetime(2025, 3, 10)))
    talks = [
        Conversation(messages=[Message(id=f"m{n}", speaker="Ann", text=text, timestamp=at)])
        for n, (text, at) in enumerate(said)
    ]
    await engine.remember(talks, dataset_name="chat")
    return {"as_of": AS_OF}


@pytest.fixture(params=["metadata_filters", "as_of"])
async def scoped(request, engine) -> tuple[StoreReader, TenantReader, dict[str, object]]:
    """(every chunk, a reader that excludes the chunk stating ``EXCLUDED``, the
    recall() options that scope a call the same way)."""
    options = await (_by_team if request.param == "metadata_filters" else _by_time)(engine)
    store = engine.store()
    ids = list(store.datasets())
    if request.param == "as_of":
        return StoreReader(store, ids), AsOfReader(store, ids, as_of=AS_OF), options
    team_a = ChunkFilter(equals=((("team",), "a"),))
    return StoreReader(store, ids), TenantReader(store, ids, where=team_a), options


async def _chunks(everything: StoreReader) -> tuple[str, str]:
    """(the allowed chunk, the excluded one)."""
    found = []
    for text in (ALLOWED, EXCLUDED):
        (hit,) = await everything.lexical_chunks(text, 1)
        assert text in hit.text
        found.append(hit.chunk_id)
    return found[0], found[1]


def _vector(engine: RecallEngine, text: str) -> np.ndarray:
    return engine.embedder.embed([text])[0].astype(np.float32)


def _stated_in(events: list[EventHit]) -> set[str | None]:
    return {e.chunk_id for e in events} | {s.chunk_id for e in events for s in e.sources}


async def test_nearest_events_are_stated_in_chunks_the_filter_passes(scoped, engine) -> None:
    everything, narrowed, _ = scoped
    allowed, excluded = await _chunks(everything)
    vector = _vector(engine, EXCLUDED)
    every = await everything.nearest_events(vector, 10)
    assert _stated_in(every) == {allowed, excluded}
    assert every[0].chunk_id == excluded  # the nearest is the excluded one

    kept = [e for e in every if e.chunk_id == allowed]
    assert await narrowed.nearest_events(vector, 10) == kept
    # k of them when k pass: searched past the excluded nearest ones
    assert await narrowed.nearest_events(vector, len(kept)) == kept


async def test_events_between_are_stated_in_chunks_the_filter_passes(scoped, engine) -> None:
    everything, narrowed, _ = scoped
    allowed, excluded = await _chunks(everything)
    vector = _vector(engine, EXCLUDED)
    for ranked_by in (None, vector):  # nearest first, or in time order
        every = await everything.events_between(*MARCH, vector=ranked_by, k=10)
        assert _stated_in(every) == {allowed, excluded}
        assert every[0].chunk_id == excluded
        kept = [e for e in every if e.chunk_id == allowed]
        assert await narrowed.events_between(*MARCH, vector=ranked_by, k=10) == kept
        assert await narrowed.events_between(*MARCH, vector=ranked_by, k=len(kept)) == kept


@pytest.mark.parametrize(
    "question",
    ["Where did Ada Lovelace go in March 2023?", "When did Ada Lovelace visit the glacier park?"],
)
async def test_a_temporal_recall_reads_no_event_the_scope_excludes(scoped, engine, question):
    # an interval (events_between) and a "when" question (nearest_events): neither
    # reads the excluded visit, cites its chunk, nor answers from it offline; the one
    # event listed is the allowed one (the excluded one, nearer, took its place and
    # was dropped after, with the laid-out context)
    everything, _, options = scoped
    _, excluded = await _chunks(everything)
    (context,) = await engine.recall(
        question,
        query_type=SearchType.TEMPORAL,
        only_context=True,
        verbose=True,
        retriever_specific_config={"events_k": 1},
        **options,
    )
    assert context.metadata["temporal"]["ran"] == SearchType.TEMPORAL.value
    assert context.metadata["retrieval"]["lanes"]["events"] == 1
    assert excluded not in {s["chunk_id"] for s in context.metadata["sources"]}
    assert "glacier" not in context.text and "Oslo" not in context.text
    assert "Events:\n- 2023-03-03: " in context.text
    (answer,) = await engine.recall(question, query_type=SearchType.TEMPORAL, **options)
    assert "Oslo" not in answer.text and "glacier" not in answer.text
    assert excluded not in {s["chunk_id"] for s in answer.metadata["sources"]}


async def test_events_without_a_filter_read_as_before(engine) -> None:
    await _by_team(engine)
    store = engine.store()
    reader = StoreReader(store, list(store.datasets()))
    vector = _vector(engine, EXCLUDED)
    assert [e.id for e in await reader.nearest_events(vector, 1)] == [
        row["id"] for row, _ in store.event_index.search(vector, 1, reader.dataset_ids)
    ]
    assert len(await reader.events_between(*MARCH, k=1)) == 1
