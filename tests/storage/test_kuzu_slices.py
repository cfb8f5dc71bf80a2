"""An ingest reaches Kuzu in bounded slices of rows, still in one transaction.

Kuzu binds and plans a query with the GIL held for a time that grows with its
parameter list; one call with thousands of rows stalled the event loop for
hundreds of milliseconds (bench.loop_stall), so every row list goes in slices of
``ROW_SLICE`` (queries) or ``COPY_SLICE`` (bulk inserts, an Arrow table each). A
failure in a later slice must still roll back the earlier ones.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from recall_engine import Document, RecallEngine
from recall_engine.core.errors import StoreError
from recall_engine.storage import kuzu_bulk as bulk
from recall_engine.storage import kuzu_graph_elements as ge
from recall_engine.testing import DeterministicEmbedder

SLICE = 4
NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Niels Bohr"]
PLACES = ["London", "Paris", "Ulm", "Lyon", "Boston"]
DOCS = [
    Document(
        text=" ".join(
            f"{NAMES[(d + i) % 5]} visited {PLACES[(d * 3 + i) % 5]} in {1900 + d * 10 + i}."
            for i in range(12)
        ),
        title=f"doc {d}",
    )
    for d in range(6)
]
COUNTS = {
    "documents": "MATCH (d:Document) RETURN count(d)",
    "chunks": "MATCH (c:Chunk) RETURN count(c)",
    "entities": "MATCH (e:Entity) RETURN count(e)",
    "mentions": "MATCH ()-[m:MENTIONS]->() RETURN count(m)",
    "relations": "MATCH ()-[r:RELATES]->() RETURN count(r)",
    "events": "MATCH (v:Event) RETURN count(v)",
    "summaries": "MATCH (s:Summary) RETURN count(s)",
}


class SpyConnection:
    """Delegates to a Kuzu connection, records the size of every list or Arrow
    table parameter, and fails the ``fail_at``-th call whose query contains ``fail_on``."""

    def __init__(self, conn: Any, *, fail_on: str | None = None, fail_at: int = 2) -> None:
        self._conn = conn
        self.sizes: list[int] = []
        self.copies: list[str] = []
        self._fail_on, self._fail_at, self._hits = fail_on, fail_at, 0

    def execute(self, query: str, params: dict[str, Any] | None = None) -> Any:
        self.sizes += [len(v) for v in (params or {}).values() if isinstance(v, list | pa.Table)]
        self.copies += [q for q in [query] if q.startswith("COPY ")]
        if self._fail_on is not None and self._fail_on in query:
            self._hits += 1
            if self._hits == self._fail_at:
                raise RuntimeError("disk full")
        return self._conn.execute(query, params or {})

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def counts(store) -> dict[str, int]:
    return {k: store.graph.execute(q)[0][0] for k, q in COUNTS.items()}


@pytest.fixture
async def reference(tmp_path) -> dict[str, int]:
    """What the same ingest writes with the shipped slice size."""
    eng = RecallEngine(tmp_path / "ref", embedder=DeterministicEmbedder())
    try:
        await eng.remember(DOCS, dataset_name="people")
        return counts(eng.store())
    finally:
        eng.close()


async def test_every_call_carries_at_most_a_slice_and_writes_everything(
    tmp_path, monkeypatch, reference
) -> None:
    assert reference["mentions"] > 3 * SLICE and reference["relations"] > SLICE
    monkeypatch.setattr(ge, "ROW_SLICE", SLICE)
    monkeypatch.setattr(bulk, "COPY_SLICE", SLICE)
    monkeypatch.setattr(ge, "ID_SLICE", SLICE)
    eng = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        await eng.remember(Document(text="Ada Lovelace lived in London."), dataset_name="people")
        store = eng.store()
        spy = SpyConnection(store.graph._conn)
        monkeypatch.setattr(store.graph, "_conn", spy)
        await eng.remember(DOCS, dataset_name="people")
        assert spy.sizes and max(spy.sizes) <= SLICE
        assert spy.copies.count("COPY MENTIONS FROM $rows") >= reference["mentions"] // SLICE
        assert counts(store)["mentions"] >= reference["mentions"]
        assert counts(store)["documents"] == reference["documents"] + 1
    finally:
        eng.close()


async def test_a_failure_in_a_later_slice_rolls_back_the_earlier_ones(
    tmp_path, monkeypatch, reference
) -> None:
    monkeypatch.setattr(ge, "ROW_SLICE", SLICE)
    monkeypatch.setattr(bulk, "COPY_SLICE", SLICE)
    monkeypatch.setattr(ge, "ID_SLICE", SLICE)
    eng = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        await eng.remember(Document(text="it was a quiet day."), dataset_name="people")
        store = eng.store()
        before = counts(store)
        real = store.graph._conn
        # The third slice of mentions: chunks, entities and two slices of mentions are in.
        monkeypatch.setattr(
            store.graph, "_conn", SpyConnection(real, fail_on="COPY MENTIONS", fail_at=3)
        )
        with pytest.raises(StoreError, match="disk full"):
            await eng.remember(DOCS, dataset_name="people")
        monkeypatch.setattr(store.graph, "_conn", real)
        assert counts(store) == before
        assert len(store.index) == before["chunks"]
        stored = await eng.remember(DOCS, dataset_name="people")  # and it can be retried
        assert len(stored.new_data_ids) == len(DOCS)
        after = counts(store)
        assert after["documents"] == reference["documents"] + 1
        assert after["mentions"] == reference["mentions"]
    finally:
        eng.close()
