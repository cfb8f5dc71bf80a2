"""A large-ish document (200 kB, thousands of entities, under ``-m slow``; 40 kB by
default) ingests with the rules graph on without a superlinear step, asserted on
counts of work, never on time:

- entity resolution scores a number of entity pairs that grows with the
  entities, not with their square;
- every new row reaches Kuzu through COPY, never ``UNWIND ... MATCH ... CREATE``
  (which scans the whole node table once per slice of rows), the stored
  candidates for resolution come from one scan (not one per slice of keys), and
  the number of Kuzu calls follows the rows written;
- the embedder gets windows of texts, never every chunk at once (its tokenised
  inputs for a whole 10 MB document would be held together).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from recall_engine import Document, RecallEngine
from recall_engine.graph import stage
from recall_engine.ingest.embed_batches import WINDOW_BATCHES
from recall_engine.storage import kuzu_bulk as bulk
from recall_engine.testing import DeterministicEmbedder

FIRST = ["Ada", "Alan", "Grace", "Marie", "Niels", "Emmy", "Carl", "Lise", "Paul", "Rosa"]
LAST = ["Lovelace", "Turing", "Hopper", "Curie", "Bohr", "Noether", "Gauss", "Meitner"]
PLACES = ["London", "Paris", "Ulm", "Lyon", "Boston", "Vienna", "Oslo", "Kyoto", "Lima"]
ORGS = ["Northwind Labs", "Acme Corp", "Globex", "Initech", "Umbrella Group", "Hooli"]


def _prose(chars: int, seed: int = 3) -> str:
    """Sentences about many distinct people, places and organisations."""
    rng = random.Random(seed)
    sentences: list[str] = []
    size = 0
    n = 0
    while size < chars:
        person = f"{rng.choice(FIRST)} {rng.choice(LAST)}{n % 997}"
        place = f"{rng.choice(PLACES)}{n % 613}"
        org = f"{rng.choice(ORGS)} {n % 421}"
        sentence = rng.choice(
            [
                f"{person} moved to {place} in {1900 + n % 120}.",
                f"{person} works for {org} in {place}.",
                f"In {1950 + n % 70}, {person} joined {org}.",
                f"{person} met {rng.choice(FIRST)} {rng.choice(LAST)} at {org}.",
            ]
        )
        sentences.append(sentence)
        size += len(sentence) + 1
        n += 1
        if n % 8 == 0:
            sentences.append("\n\n")
    return " ".join(sentences)


class RecordingEmbedder(DeterministicEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().embed(texts, batch_size=batch_size)


class CountingConnection:
    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.queries: list[str] = []

    def execute(self, query: str, params: dict[str, Any] | None = None) -> Any:
        self.queries.append(query)
        return self._conn.execute(query, params or {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@pytest.mark.parametrize(
    ("chars", "batch_size", "chunks", "entities"),
    [
        # 40 kB (~1,400 entities) and windows of 4 * WINDOW_BATCHES: all pairs would still be
        # ~500,000 comparisons and one query per slice of 128 rows would pass the call bound.
        (40_000, 4, 40, 1000),
        pytest.param(200_000, 16, 200, 2000, marks=pytest.mark.slow),
    ],
    ids=["40kB", "200kB"],
)
async def test_a_200_kb_document_ingests_without_superlinear_work(
    tmp_path, monkeypatch, chars, batch_size, chunks, entities
):
    resolutions = []
    real_resolve = stage.resolve

    def counting_resolve(*args: Any, **kwargs: Any):
        out = real_resolve(*args, **kwargs)
        resolutions.append(out)
        return out

    monkeypatch.setattr(stage, "resolve", counting_resolve)
    embedder = RecordingEmbedder()
    eng = RecallEngine(tmp_path / "data", embedder=embedder, embedding_batch_size=batch_size)
    try:
        await eng.remember("Ada Lovelace lived in London.", dataset_name="seed")
        store = eng.store()
        spy = CountingConnection(store.graph._conn)
        monkeypatch.setattr(store.graph, "_conn", spy)
        text = _prose(chars)
        result = await eng.remember(Document(text=text, title="people"), dataset_name="big")
    finally:
        eng.close()
    assert result.chunk_count > chunks and result.relation_count > entities
    assert result.entity_count > entities
    entities = result.entity_count
    compared = max(r.comparisons for r in resolutions)
    assert compared > 0  # rule 4 ran
    # All pairs of a type would be ~entities^2 / 4 here (> 1,000,000).
    assert compared < 40 * entities, (compared, entities)
    scans = [q for q in spy.queries if "UNWIND" in q and "MATCH" in q and "CREATE" in q]
    assert scans == []
    copies = [q for q in spy.queries if q.startswith("COPY ")]
    rows = result.chunk_count + entities + result.relation_count
    assert len(copies) >= 8
    assert sum("e.keys" in q for q in spy.queries) == 1
    window = batch_size * WINDOW_BATCHES
    assert sum(embedder.calls) > 2 * window and max(embedder.calls) <= window
    # Calls follow the rows: a handful per table, not one per slice of 128.
    assert len(spy.queries) < 40 + 3 * rows / bulk.COPY_SLICE, len(spy.queries)
