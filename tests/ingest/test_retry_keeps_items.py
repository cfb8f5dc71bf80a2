"""remember() stores an item again when its graph extraction failed or it was stored
without sentence vectors; the commit replaces the stored item, so a failure on the way
(the embedder, the graph store) leaves it as it was, in the graph and in LanceDB, and
the next remember() of the same content retries it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.errors import EmbeddingError, StoreError
from recall_engine.ingest import ingestor
from recall_engine.storage.graph_records import GRAPH_TABLES
from recall_engine.testing import DeterministicEmbedder
from tests.ingest.test_extraction_status import DownExtractor
from tests.storage import falkordb_live

ADA = Document(text="Ada Lovelace worked with Charles Babbage in London.", title="ada")
CHAT = Conversation(
    messages=[
        Message(id="D1:1", speaker="Ann", text="Hi Bo! I moved to Lyon. Did you move too?"),
        Message(id="D1:2", speaker="Bo", text="No, I stayed in Ulm with Carla Rossi."),
    ]
)


class Flaky(DeterministicEmbedder):
    """The deterministic embedder, failing every call while ``failing`` is set."""

    failing = False

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if self.failing:
            raise RuntimeError("the embedding service went away")
        return super().embed(texts, batch_size=batch_size)


def held(engine: RecallEngine) -> dict[str, Any]:
    """Everything the tenant holds for its items, comparable with ``==``: the items,
    LanceDB's chunk rows (each id with how often it is stored), sentence vectors and
    graph tables, and the graph's entities, relations, mentions and failures."""
    store = engine.store()
    records, _, _, sentences = store.vectors.load_chunks()
    graph = store.graph
    documents = graph.documents()
    items = [d.id for d in documents]
    return {
        "items": sorted((d.id, d.chunk_count) for d in documents),
        "written": sorted(d.created_at for d in documents),
        "chunk_rows": sorted(Counter(r.id for r in records).items()),
        "sentence_rows": sum(len(s) for s in sentences),
        "lance_graph": {t: store.vectors.graph.count(t) for t in GRAPH_TABLES},
        "entities": sorted(e.id for e in graph.entities()),
        "relations": sorted(r.id for r in graph.relations()),
        "mentions": sorted((m.chunk_id, m.entity_id) for m in graph.mention_links()),
        "failures": sorted(graph.extraction_failures(items)),
    }


@pytest.fixture(params=["kuzu", "falkordb"])
def opener(request, tmp_path) -> Callable[..., RecallEngine]:
    """Opens the engine on one data dir (and, on FalkorDB, one graph) again and again."""
    graph = {"graph_url": falkordb_live.server().url()} if request.param == "falkordb" else {}

    def open_engine(embedder: DeterministicEmbedder, **config: Any) -> RecallEngine:
        return RecallEngine(tmp_path / "data", embedder=embedder, **graph, **config)

    return open_engine


async def _remember_failing(
    engine: RecallEngine, embedder: Flaky, how: str, monkeypatch, data: object, dataset: str
) -> None:
    """remember() ``data`` again while ``how`` fails (the embedder, or the graph
    commit): it raises that failure (a custom embedder's error as ``EmbeddingError``,
    its cause); then the failure is lifted."""
    if how == "embedding":
        embedder.failing, error = True, EmbeddingError
    else:

        def refused(*args, **kwargs):
            raise StoreError("disk full")

        monkeypatch.setattr(engine.store().graph, "write_ingest", refused)
        error = StoreError
    with pytest.raises(error, match=r"went away|disk full"):
        await engine.remember(data, dataset_name=dataset)
    monkeypatch.undo()
    embedder.failing = False


@pytest.mark.parametrize("how", ["embedding", "commit"])
async def test_a_failed_retry_of_a_failed_extraction_keeps_the_item(
    opener, monkeypatch, how
) -> None:
    embedder = Flaky()
    monkeypatch.setattr(ingestor, "build_extractor", lambda config: DownExtractor())
    engine = opener(embedder)
    try:
        (data_id,) = (await engine.remember(ADA, dataset_name="d")).data_ids
        monkeypatch.undo()
        before = held(engine)
        assert before["failures"] == [data_id] and before["entities"] == []
        await _remember_failing(engine, embedder, how, monkeypatch, ADA, "d")
        assert held(engine) == before
        hits = await engine.recall("Babbage", SearchType.CHUNKS, only_context=True)
        assert [h.metadata["sources"][0]["data_id"] for h in hits] == [data_id]
    finally:
        engine.close()
    engine = opener(embedder)  # and so it is in the files
    try:
        assert held(engine) == before
        retried = await engine.remember(ADA, dataset_name="d")
        assert retried.retried_data_ids == [data_id] and retried.extraction == {data_id: "ok"}
        after = held(engine)
        assert after["items"] == before["items"] and after["chunk_rows"] == before["chunk_rows"]
        assert after["failures"] == [] and after["entities"]
    finally:
        engine.close()


@pytest.mark.parametrize("how", ["embedding", "commit"])
async def test_a_failed_refill_of_sentence_vectors_keeps_the_item_and_its_graph(
    opener, monkeypatch, how
) -> None:
    embedder = Flaky()
    engine = opener(embedder, sentence_vectors=False)
    try:
        (data_id,) = (await engine.remember(CHAT, dataset_name="chat")).data_ids
    finally:
        engine.close()
    engine = opener(embedder)
    try:
        before = held(engine)
        assert before["sentence_rows"] == 0 and before["entities"] and before["mentions"]
        await _remember_failing(engine, embedder, how, monkeypatch, CHAT, "chat")
        assert held(engine) == before
        assert len(engine.store().index) == 2
    finally:
        engine.close()
    engine = opener(embedder)
    try:
        assert held(engine) == before
        refreshed = await engine.remember(CHAT, dataset_name="chat")
        assert refreshed.retried_data_ids == [data_id]
        after = held(engine)
        assert after["sentence_rows"] == 3
        assert {k: after[k] for k in ("items", "chunk_rows", "entities", "relations")} == {
            k: before[k] for k in ("items", "chunk_rows", "entities", "relations")
        }
    finally:
        engine.close()


async def test_an_item_the_graph_holds_without_its_chunk_rows_is_stored_again(opener) -> None:
    # What a process killed between a retry's removal of the rows and its graph
    # commit, or a replica that committed after losing its lease, leaves behind.
    embedder = Flaky()
    engine = opener(embedder)
    try:
        (data_id,) = (await engine.remember(ADA, dataset_name="d")).data_ids
        complete = held(engine)
        engine.store().vectors.delete_data([data_id])
    finally:
        engine.close()
    engine = opener(embedder)
    try:
        assert held(engine)["chunk_rows"] == []
        assert await engine.recall("Babbage", SearchType.CHUNKS, only_context=True) == []
        again = await engine.remember(ADA, dataset_name="d")
        assert again.retried_data_ids == [data_id] and again.skipped_data_ids == []
        after = held(engine)
        assert {k: after[k] for k in ("items", "chunk_rows", "entities", "relations")} == {
            k: complete[k] for k in ("items", "chunk_rows", "entities", "relations")
        }
        hits = await engine.recall("Babbage", SearchType.CHUNKS, only_context=True)
        assert [h.metadata["sources"][0]["data_id"] for h in hits] == [data_id]
    finally:
        engine.close()
