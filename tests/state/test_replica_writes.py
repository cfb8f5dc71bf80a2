"""Two engines on data dirs of their own that share the whole distributed profile
(FalkorDB graph, LanceDB on moto S3, Postgres state): each sees the other's new
datasets, chunks, entities and relations without reopening; writes go one at a
time through the tenant's writer lease; an ingest that died half-way is never
visible, and the next writer rolls it back (or commits it, when its graph commit
happened)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.core.errors import StoreError, WriterBusyError
from recall_engine.ingest import writer
from recall_engine.ingest.writer import WriteTicket
from recall_engine.server import ServerSettings, create_app
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.tenant import TenantStore
from recall_engine.testing import DeterministicEmbedder
from tests.live_uvicorn import start_in_thread
from tests.state.conftest import PG_URL
from tests.storage import falkordb_live, moto_s3

ADA = "Ada Lovelace wrote the first program for the Analytical Engine in London."
LYON = "Marie Curie moved to Paris and studied radium at the Sorbonne."
HALF = "Quentin Zorbaster buried the Vexley treasure under the old mill."


@pytest.fixture
def profile(pg_schema: str) -> dict[str, Any]:
    s3 = moto_s3.server()
    return {
        "graph_url": falkordb_live.server().url(),
        "vector_uri": s3.fresh_uri(),
        "vector_storage_options": s3.options,
        "state_url": f"{PG_URL}?schema={pg_schema}",
        "vector_refresh_s": 0,
    }


@pytest.fixture
def replicas(tmp_path: Path, profile: dict[str, Any]) -> Iterator[tuple[RecallEngine, ...]]:
    a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), **profile)
    b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **profile)
    yield a, b
    a.close()
    b.close()


async def _texts(engine: RecallEngine, query: str) -> str:
    results = await engine.recall(query, SearchType.CHUNKS, only_context=True, top_k=20)
    return " | ".join(r.text for r in results)


def _names(store: TenantStore) -> set[str]:
    store.sync()
    return {row["name"] for row in store.entity_index.rows()}


async def test_each_replica_sees_the_others_writes_without_reopening(
    replicas: tuple[RecallEngine, ...],
) -> None:
    a, b = replicas
    await a.remember(LYON, dataset_name="science")
    seen_by_b = b.store()  # opened now; every later write of A must reach it
    assert "Marie Curie" in await _texts(b, "Where did Marie Curie study radium?")
    result = await a.remember(ADA, dataset_name="history")
    assert result.entity_count > 0 and result.relation_count > 0
    assert "history" in seen_by_b.datasets().values()  # a new dataset, no reopening
    assert "Ada Lovelace" in await _texts(b, "Who wrote the first program?")
    assert {"Ada Lovelace", "Analytical Engine"} <= _names(seen_by_b)  # entity vectors
    relations = {row["data_id"] for row in seen_by_b.relation_index.rows()}
    assert result.new_data_ids[0] in relations
    await b.forget(dataset_name="history")  # and the other way round: B's deletion
    assert "history" not in a.store().datasets().values()
    assert "Ada Lovelace" not in await _texts(a, "Who wrote the first program?")
    assert "Ada Lovelace" not in _names(a.store())
    assert b.store() is seen_by_b


def _die_before_the_graph_commit(engine: RecallEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's next ingest writes its vector rows, then fails as a killed process
    would: no graph commit, no clean-up, its ledger row left pending."""
    store = engine.store()

    def crash(*args: object, **kwargs: object) -> None:
        raise StoreError("killed")

    monkeypatch.setattr(store.graph, "write_ingest", crash)
    monkeypatch.setattr(store, "_undo_vectors", lambda *a, **k: None)
    monkeypatch.setattr(WriteTicket, "abandoned", lambda *a, **k: None)


async def test_a_half_written_ingest_is_never_seen_and_the_next_writer_rolls_it_back(
    replicas: tuple[RecallEngine, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = replicas
    await a.remember(LYON, dataset_name="science")
    with monkeypatch.context() as patch:
        _die_before_the_graph_commit(a, patch)
        with pytest.raises(StoreError, match="killed"):
            await a.remember(HALF, dataset_name="science")
    tenant = a.store().tenant_id
    pending = a._writers.ledger.pending(tenant)
    assert [e.status for e in pending] == ["pending"]
    assert a.store().vectors.data_ids() >= {pending[0].data_id}  # its rows did reach S3
    for engine in (a, b):  # ... and neither replica shows them
        assert "Zorbaster" not in await _texts(engine, "Who buried the Vexley treasure?")
        assert engine.store()._gate is not None and engine.store()._gate.held() > 0
    await b.remember(ADA, dataset_name="history")  # B takes the lease: the orphan goes
    assert a._writers.ledger.pending(tenant) == []
    assert pending[0].data_id not in b.store().vectors.data_ids()
    for engine in (a, b):
        store = engine.store()
        store.sync()
        assert store._gate is not None and store._gate.held() == 0
        assert "Zorbaster" not in await _texts(engine, "Who buried the Vexley treasure?")
    again = await a.remember(HALF, dataset_name="science")  # and it can be written anew
    assert again.new_data_ids == [pending[0].data_id]
    assert "Zorbaster" in await _texts(b, "Who buried the Vexley treasure?")


async def test_an_orphan_whose_graph_commit_happened_is_committed_by_the_next_writer(
    replicas: tuple[RecallEngine, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = replicas
    with monkeypatch.context() as patch:  # died after the graph commit, before the ledger's
        patch.setattr(WriteTicket, "committed", lambda *a, **k: None)
        result = await a.remember(ADA, dataset_name="history")
    tenant, data_id = a.store().tenant_id, result.new_data_ids[0]
    assert [e.data_id for e in a._writers.ledger.pending(tenant)] == [data_id]
    await b.remember(LYON, dataset_name="science")
    entries = [a._writers.ledger.entry(tenant, result.dataset_id, data_id)]
    assert [e.status for e in entries if e is not None] == ["committed"]
    assert "Ada Lovelace" in await _texts(b, "Who wrote the first program?")  # nothing lost


async def test_a_replica_stalled_past_its_lease_cannot_commit_over_the_next_writer(
    replicas: tuple[RecallEngine, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stalls after its last lease check, just before its graph write; its lease
    runs out and B writes the tenant (rolling A's pending rows back). When A wakes,
    the graph refuses its write: A's remember() fails, and nothing of it is stored
    where B rolled it back (before the fence, the graph took it: an item without
    its vectors, reported only afterwards by the ledger)."""
    a, b = replicas
    await a.remember(LYON, dataset_name="science")
    store, real = a.store(), a.store().graph.write_ingest
    assert a._writers is not None
    tenant = store.tenant_id

    def stall_then_write(*args: Any, **kwargs: Any) -> Any:
        with a._writers.db.write() as conn:  # A's lease runs out while it stalls...
            conn.execute("UPDATE writer_leases SET expires_at = 0 WHERE tenant_id = ?", (tenant,))
        asyncio.run(b.remember(ADA, dataset_name="history"))  # ... and B writes meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(store.graph, "write_ingest", stall_then_write)
    with pytest.raises(StoreError, match="Another replica took over"):
        await a.remember(HALF, dataset_name="science")
    monkeypatch.undo()
    for engine in (a, b):
        assert "Zorbaster" not in await _texts(engine, "Who buried the Vexley treasure?")
        assert "Ada Lovelace" in await _texts(engine, "Who wrote the first program?")
    graph_items = store.graph.document_ids()
    assert store.vectors.data_ids() == graph_items  # no item without its rows
    assert a._writers.ledger.pending(tenant) == []
    again = await a.remember(HALF, dataset_name="science")  # A's retry goes through
    assert again.new_data_ids and again.new_data_ids[0] not in graph_items
    assert "Zorbaster" in await _texts(b, "Who buried the Vexley treasure?")


class _StepClock:
    """A clock for ``ingest.writer`` that stands still until the writer sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_a_writer_waits_its_bound_for_another_replicas_lease_then_answers_503(
    tmp_path: Path, profile: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), writer_wait_s=0.5,
                     **profile)  # fmt: skip
    b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **profile)
    port, server, thread = start_in_thread(create_app(a, ServerSettings(auth=False)))
    try:
        await a.remember(LYON, dataset_name="science")
        store = a.store()
        assert b._writers is not None and a._writers is not None
        held = b._writers.leases.acquire(store.tenant_id, b._writers.holder)
        assert held is not None
        clock = _StepClock()  # the writer's clock moves only when it sleeps
        with monkeypatch.context() as patched:
            patched.setattr(writer, "time", clock)
            with pytest.raises(WriterBusyError, match="writer_wait_s") as busy:
                await a.remember(ADA, dataset_name="history")
        assert busy.value.retry_after_s > 0
        # It kept asking for the lease until writer_wait_s had passed, then gave up.
        assert clock.slept and sum(clock.slept) >= 0.5 > sum(clock.slept[:-1])
        reply = httpx.post(f"http://127.0.0.1:{port}/api/v1/remember",
                           json={"data": ADA, "dataset_name": "history"}, timeout=30)  # fmt: skip
        assert reply.status_code == 503 and int(reply.headers["Retry-After"]) >= 1
        assert "history" not in store.datasets().values()  # nothing changed
        assert a._writers.ledger.pending(store.tenant_id) == []
        b._writers.leases.release(held)
        await a.remember(ADA, dataset_name="history")  # free again: it goes through
        assert "history" in store.datasets().values()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        a.close()
        b.close()


async def test_the_lease_is_renewed_while_a_write_lasts(
    tmp_path: Path, profile: dict[str, Any]
) -> None:
    engine = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(),
                          writer_lease_ttl_s=0.6, **profile)  # fmt: skip
    try:
        await engine.remember(LYON, dataset_name="science")
        store, writers = engine.store(), engine._writers
        assert writers is not None
        with writers.hold(store) as ticket:
            assert ticket.lease is not None
            first = ticket.lease.expires_at
            # Renewed until it reaches past what the first lease's lifetime would have
            # been; how soon depends on the machine, so the deadline only bounds a hang.
            deadline = time.monotonic() + 60
            while ticket.lease.expires_at <= first + 0.6:
                assert time.monotonic() < deadline, "the lease was not renewed"
                time.sleep(0.05)
            assert ticket.lease.holder == writers.holder
            ticket.check()  # not lost
        assert writers.leases.current(store.tenant_id) is None  # released at the end
    finally:
        engine.close()


def test_an_embedded_engine_takes_no_lease(tmp_path: Path) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        assert engine._writers is None
    finally:
        engine.close()


def test_a_falkordb_store_is_what_the_profile_opens(replicas: tuple[RecallEngine, ...]) -> None:
    a, _ = replicas
    assert isinstance(a.store(create=True).graph, FalkorGraphStore)
