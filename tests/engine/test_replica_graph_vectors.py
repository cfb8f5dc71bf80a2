"""A replica's graph vector indexes follow what another replica writes to the
shared graph and tables (graph on FalkorDB, vectors on moto S3): a replica that
had the store open before another one's ingest answers every graph search type
as the writer does, and after a forget too; rows that land before the writer's
graph commit wait for it, so a half-written ingest never shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.testing import DeterministicEmbedder
from tests.distributed_profile import distributed_profile

QUESTION = "Who did Ada Lovelace work with on the Analytical Engine?"
ADA = "Ada Lovelace worked with Charles Babbage in London on the Analytical Engine."
GRAPH_TYPES = [
    SearchType.GRAPH_COMPLETION,
    SearchType.TRIPLET_COMPLETION,
    SearchType.SUMMARIES,
    SearchType.GRAPH_SUMMARY_COMPLETION,
]


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[RecallEngine, RecallEngine]]:
    with distributed_profile() as profile:
        options = profile.options(vector_refresh_s=0)
        a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), **options)
        b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **options)
        try:
            yield a, b
        finally:
            a.close()
            b.close()


async def _texts(engine: RecallEngine, search_type: SearchType) -> list[str]:
    results = await engine.recall(QUESTION, search_type, only_context=True, top_k=5)
    return [r.text for r in results]


async def test_a_replica_open_before_an_ingest_finds_its_graph(pair) -> None:
    a, b = pair
    await a.remember("Grace Hopper wrote the first compiler.", dataset_name="people")
    assert await b.recall("Grace Hopper", SearchType.CHUNKS)  # b opens the store now
    stored = await a.remember(ADA, dataset_name="people")
    for search_type in GRAPH_TYPES:
        expected = await _texts(a, search_type)
        assert any("Babbage" in text for text in expected), search_type
        assert await _texts(b, search_type) == expected, search_type
    await a.forget(data_id=stored.data_ids)
    for search_type in GRAPH_TYPES:
        assert not any("Babbage" in text for text in await _texts(b, search_type))


async def test_rows_before_the_graph_commit_wait_for_it(pair, monkeypatch) -> None:
    a, b = pair
    await a.remember("Grace Hopper wrote the first compiler.", dataset_name="people")
    store_a = a.store()
    await b.recall("Grace Hopper", SearchType.CHUNKS)
    store_b = b.store()
    indexes = ("entity_index", "relation_index", "summary_index")
    before = {name: len(getattr(store_b, name)) for name in indexes}
    during: dict[str, int] = {}
    commit = store_a.graph.write_ingest

    def write_ingest(*args, **kwargs):
        # b reads while a's vector rows are in the tables but not yet in the graph
        store_b.sync(force=True)
        during.update({name: len(getattr(store_b, name)) for name in indexes})
        return commit(*args, **kwargs)

    monkeypatch.setattr(store_a.graph, "write_ingest", write_ingest)
    await a.remember(ADA, dataset_name="people")
    assert during == before
    store_b.sync(force=True)
    after = {name: len(getattr(store_b, name)) for name in indexes}
    assert after == {name: len(getattr(store_a, name)) for name in indexes}
    assert all(after[name] > before[name] for name in indexes)
