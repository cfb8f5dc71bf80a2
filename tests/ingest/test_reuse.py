"""Storing an item again (a conversation re-stored with one more turn, a document
remembered again with an edit) embeds only the texts its dataset has not embedded
yet; the others get their kept vectors (``ingest.reuse``), so what is stored and
recalled is what embedding everything again gives. No reuse crosses datasets, and
a failed write leaves the store and the kept vectors as they were."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine import RecallEngine
from recall_engine.ingest import ingestor
from recall_engine.ingest.reuse import ReuseMemo, ReusingEmbedder
from recall_engine.storage.tenant import TenantStore
from recall_engine.testing import DeterministicEmbedder
from tests.conversation_turns import conversation_turn

LINES = [
    ("Ann", "I moved to Lyon last spring. The flat is small but bright."),
    ("Bob", "Nice! Do you like the food there?"),
    ("Ann", "Very much. Paul Bocuse started his restaurant near Lyon."),
    ("Bob", "My sister Clara works for Northwind Labs in Paris."),
    ("Ann", "I bought a bicycle on Sunday. I ride it along the river."),
    ("Bob", "Clara rides too. She joined a club in Paris last year."),
]
QUERIES = ["Where did Ann move?", "Who works for Northwind Labs?", "bicycle river"]


class Counting(DeterministicEmbedder):
    """The test embedder, counting how often each text is embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        self.seen.update(texts)
        return super().embed(texts, batch_size=batch_size)


def _turn(n: int) -> dict[str, object]:
    speaker, text = LINES[n]
    return conversation_turn(n, text, speaker)


async def _one_at_a_time(engine: RecallEngine, sub: str = "chat") -> list[int]:
    """Upload LINES a turn at a time; the texts embedded by each upload."""
    counting = engine.embedder
    assert isinstance(counting, Counting)
    per_upload = []
    for n in range(len(LINES)):
        before = counting.seen.total()
        stored = await engine.upload_knowledge("acme", [_turn(n)], sub_tenant_id=sub)
        assert stored.success_count == 1, stored.results
        per_upload.append(counting.seen.total() - before)
    return per_upload


async def _recalled(engine: RecallEngine, sub: str = "chat") -> list[list[tuple[str, str]]]:
    out = []
    for query in QUERIES:
        found = await engine.full_recall(
            tenant_id="acme", sub_tenant_id=sub, query=query, max_results=5
        )
        out.append([(c.source_id, c.chunk_content) for c in found.chunks])
    return out


def _store(engine: RecallEngine) -> TenantStore:
    return engine.store(engine.tenants.registry.store_name("acme"))


def _vectors(store: TenantStore) -> dict[str, np.ndarray]:
    """Every stored vector (chunks, entities, relations) by row id."""
    out = store.index.vectors.vectors_of(r.id for r in store.index.records())
    for name, index in sorted(store.graph_indexes().items()):
        rows = index.rows()
        out.update({f"{name}:{k}": v for k, v in index.vectors_of(r["id"] for r in rows).items()})
    return out


@pytest.fixture
async def pair(tmp_path):
    """Two engines on fresh data dirs, each with its own counting embedder."""
    engines = [RecallEngine(tmp_path / name, embedder=Counting()) for name in ("a", "b")]
    for engine in engines:
        await engine.create_tenant("acme")
    yield engines
    for engine in engines:
        engine.close()


async def test_each_text_is_embedded_once_across_turn_uploads(pair):
    reusing, _ = pair
    per_upload = await _one_at_a_time(reusing)
    seen = reusing.embedder.seen
    assert seen and max(seen.values()) == 1, seen.most_common(3)
    # the last upload embeds its own turn (and the graph texts new with it), not the first five
    first_turn = f"{LINES[0][0]} said: {LINES[0][1]}"
    assert first_turn in seen and sum(per_upload) == len(seen)


async def test_reuse_stores_and_recalls_what_embedding_again_gives(pair, monkeypatch):
    reusing, fresh = pair
    await _one_at_a_time(reusing)
    with monkeypatch.context() as patch:  # no kept vectors: every write embeds everything
        patch.setattr(ingestor, "memo_of", lambda store: ReuseMemo())
        await _one_at_a_time(fresh)
    assert max(fresh.embedder.seen.values()) > 1  # it did embed some texts again
    assert await _recalled(reusing) == await _recalled(fresh)
    kept, again = _vectors(_store(reusing)), _vectors(_store(fresh))
    assert kept.keys() == again.keys() and len(kept) > len(LINES)
    for key, vector in again.items():
        assert np.array_equal(kept[key], vector), key


async def test_an_edited_document_embeds_only_its_new_text(engine):
    engine.embedder = counting = Counting()
    await engine.create_tenant("acme")
    text = " ".join(f"Paragraph {i} talks about topic {i} at length." for i in range(40))
    doc = {"id": "d1", "title": "Notes", "type": "document", "text": text}
    await engine.upload_knowledge("acme", [doc], sub_tenant_id="kb")
    first = counting.seen.total()
    edited = {**doc, "text": text + " One more sentence at the end."}
    await engine.upload_knowledge("acme", [edited], sub_tenant_id="kb")
    assert 0 < counting.seen.total() - first < first / 4
    assert max(counting.seen.values()) == 1


async def test_no_reuse_across_datasets(pair):
    engine, _ = pair
    await _one_at_a_time(engine, sub="one")
    once = engine.embedder.seen.total()
    await _one_at_a_time(engine, sub="two")  # the same turns in another sub-tenant
    assert engine.embedder.seen.total() == 2 * once
    assert set(engine.embedder.seen.values()) == {2}


async def test_a_failed_write_leaves_store_and_kept_vectors(pair, monkeypatch):
    engine, _ = pair
    for n in range(3):
        await engine.upload_knowledge("acme", [_turn(n)], sub_tenant_id="chat")
    store = _store(engine)
    records = store.index.records()
    key = (records[0].dataset_id, engine.embedder.model_id)
    kept = ingestor.memo_of(store).lookup(key, store.index.has_data).keys()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(TenantStore, "commit_ingest", broken)
        with pytest.raises(RuntimeError, match="disk full"):
            await engine.upload_knowledge("acme", [_turn(3)], sub_tenant_id="chat")
    assert store.index.records() == records
    assert ingestor.memo_of(store).lookup(key, store.index.has_data).keys() == kept
    before = engine.embedder.seen.total()
    await engine.upload_knowledge("acme", [_turn(3)], sub_tenant_id="chat")
    again = engine.embedder.seen.total() - before
    assert again > 0 and max(engine.embedder.seen.values()) == 2  # turn 3's texts, twice


def test_memo_drops_items_that_are_gone_and_shares_texts():
    memo = ReuseMemo()
    one, two = np.ones(4, dtype=np.float32), np.zeros(4, dtype=np.float32)
    memo.keep(("ds", "m"), {"a": ["x", "y"], "b": ["y"]}, {"x": one, "y": two})
    assert memo.lookup(("ds", "m"), lambda d: True).keys() == {"x", "y"}
    assert memo.lookup(("ds", "other-model"), lambda d: True) == {}
    assert memo.lookup(("other", "m"), lambda d: True) == {}
    assert memo.lookup(("ds", "m"), lambda d: d == "b").keys() == {"y"}
    assert memo.lookup(("ds", "m"), lambda d: False) == {} and len(memo) == 0


def test_memo_is_bounded_and_drops_the_items_written_longest_ago():
    memo = ReuseMemo(max_texts=3)
    vector = np.ones(4, dtype=np.float32)
    memo.keep(("ds", "m"), {"a": ["x", "y"]}, {"x": vector, "y": vector})
    memo.keep(("other", "m"), {"b": ["z"]}, {"z": vector})
    memo.keep(("ds", "m"), {"a": ["x", "y"]}, {"x": vector, "y": vector})  # a written again
    memo.keep(("ds", "m"), {"c": ["w"]}, {"w": vector})  # 4 texts: b, the oldest, goes
    assert len(memo) == 3
    assert memo.lookup(("other", "m"), lambda d: True) == {}
    assert memo.lookup(("ds", "m"), lambda d: True).keys() == {"x", "y", "w"}


def test_reusing_embedder_embeds_only_missing_texts():
    inner = Counting()
    known = {"old": inner.embed(["old"])[0]}
    inner.seen.clear()
    reusing = ReusingEmbedder(inner, known)
    out = reusing.embed(["old", "new", "new", "old"])
    assert inner.seen == Counter({"new": 1}) and reusing.embedded == 1
    assert np.array_equal(out, DeterministicEmbedder().embed(["old", "new", "new", "old"]))
