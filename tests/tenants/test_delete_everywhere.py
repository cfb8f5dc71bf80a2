"""A source deleted over the tenant HTTP API (v1 and v2) is gone: no search, listing
or fetch returns it, and its bytes leave the data dir's files, except the Kuzu graph
file, which has no vacuum (``RecallEngine.forget`` says what stays there)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from recall_engine import RecallEngine
from recall_engine.server import ServerSettings
from recall_engine.sessions import SessionStore
from recall_engine.sessions.traces import TraceStore
from tests.server.conftest import KEYS, LiveServer, start_server

CANARY = "zorblaxian"
SECRET = "Mira Quell keeps a zorblaxian kettle in Quito."
KEPT = "Paul Brun bakes bread in Lima."
GRAPH_FILE = "graph.kuzu"
QUERIES = (CANARY, "Where is the kettle kept?", "Paul Brun bread")


@pytest.fixture
def served(tmp_path, hash_embedder) -> Iterator[tuple[httpx.Client, Path]]:
    data = tmp_path / "data"
    live: LiveServer = start_server(RecallEngine(data, embedder=hash_embedder), ServerSettings())
    try:
        with live.client(KEYS["acme"]) as http:
            yield http, data
    finally:
        live.stop()


def _files_with(root: Path, word: str) -> set[str]:
    """Names of the files under ``root`` whose bytes hold ``word`` (any case)."""
    needle = word.encode()
    return {p.name for p in root.rglob("*") if p.is_file() and needle in p.read_bytes().lower()}


def _v2_seen(http: httpx.Client) -> str:
    """What v2's query, listing and fetch return for the tenant, lower-cased."""
    out = []
    for kind in ("knowledge", "memory"):
        for query in QUERIES:
            body = {"database": "acme", "query": query, "type": kind}
            out.append(http.post("/query", json=body).text)
        out.append(http.post("/context/list", json={"database": "acme", "type": kind}).text)
    for source in ("k1", "m1"):
        out.append(http.get("/context/inspect", params={"database": "acme", "id": source}).text)
    return "\n".join(out).lower()


def test_a_v2_delete_leaves_nothing_to_find(served) -> None:
    http, data = served
    http.post("/databases", json={"database": "acme"}).raise_for_status()
    knowledge = [{"id": "k1", "text": SECRET}, {"id": "k2", "text": KEPT}]
    body = {"database": "acme", "app_knowledge": json.dumps(knowledge)}
    http.post("/context/ingest", json=body).raise_for_status()
    memories = [{"id": "m1", "text": SECRET}]
    body = {"database": "acme", "type": "memory", "memories": json.dumps(memories)}
    http.post("/context/ingest", json=body).raise_for_status()
    assert CANARY in _v2_seen(http)
    deleted = http.request("DELETE", "/context", json={"database": "acme", "ids": ["k1", "m1"]})
    assert deleted.json()["data"]["deleted_count"] == 2, deleted.text
    seen = _v2_seen(http)
    assert CANARY not in seen and "quito" not in seen and "lima" in seen
    assert _files_with(data, CANARY) <= {GRAPH_FILE}


def _v1_seen(http: httpx.Client) -> str:
    """What v1's knowledge and memory recalls return for the tenant, lower-cased."""
    out = []
    for path in ("/recall/full_recall", "/recall/recall_preferences"):
        for query in QUERIES:
            out.append(http.post(path, json={"tenant_id": "acme", "query": query}).text)
    return "\n".join(out).lower()


def test_v1_deletes_leave_nothing_to_find(served) -> None:
    http, data = served
    http.post("/tenants/create", json={"tenant_id": "acme"}).raise_for_status()
    memories = [{"source_id": "m1", "text": SECRET}, {"source_id": "m2", "text": KEPT}]
    body = {"tenant_id": "acme", "memories": memories}
    http.post("/memories/add_memory", json=body).raise_for_status()
    body = {"tenant_id": "acme", "app_sources": [{"id": "k1", "text": SECRET}]}
    http.post("/ingestion/upload_knowledge", json=body).raise_for_status()
    assert CANARY in _v1_seen(http)
    http.delete(
        "/memories/delete_memory", params={"tenant_id": "acme", "memory_id": "m1"}
    ).raise_for_status()
    body = {"tenant_id": "acme", "ids": ["k1"]}
    http.post("/knowledge/delete_knowledge", json=body).raise_for_status()
    seen = _v1_seen(http)
    assert CANARY not in seen and "quito" not in seen and "lima" in seen
    assert _files_with(data, CANARY) <= {GRAPH_FILE}


def test_the_session_and_trace_stores_drop_a_tenant_whole(tmp_path) -> None:
    sessions = SessionStore(tmp_path)
    traces = TraceStore(tmp_path, ttl_s=3600)
    for tenant in ("acme", "globex"):
        entry = sessions.append(
            tenant, "u", "s", question="Where?", context=f"{tenant}: {SECRET}", answer="Quito",
            element_ids=["chunk:c1"], dataset_ids=["d1"],
        )  # fmt: skip
        sessions.set_feedback(tenant, "u", "s", entry.qa_id, score=4, text=None)
        traces.append(
            tenant, "u", "s", name="look", status="ok", arguments=json.dumps([f"{tenant}: {SECRET}"]),
            result="null", error=None, duration_ms=1.0,
        )  # fmt: skip
    sessions.close()  # the rows move from the WAL into the files
    traces.close()
    sessions, traces = SessionStore(tmp_path), TraceStore(tmp_path, ttl_s=3600)
    assert sessions.drop_tenant("acme") == 1 and traces.drop_tenant("acme") == 1
    assert sessions.entries("acme", "u", "s") == [] and traces.entries("acme", "u", "s") == []
    assert sessions.element_weights("acme", ["chunk:c1"]) == {}
    assert [e.context for e in sessions.entries("globex", "u", "s")] == [f"globex: {SECRET}"]
    assert len(traces.entries("globex", "u", "s")) == 1
    assert sessions.element_weights("globex", ["chunk:c1"]) == {"chunk:c1": 0.5}
    for path in tmp_path.iterdir():  # the stores still open: their WAL files too
        assert b"acme: " not in path.read_bytes(), path.name
    sessions.close()
    traces.close()


async def test_a_deleted_tenant_leaves_no_session_history(tmp_path, hash_embedder) -> None:
    from recall_engine.mcp.reads import session_history

    async with RecallEngine(tmp_path / "data", embedder=hash_embedder) as engine:
        await engine.create_tenant("acme")
        store = engine.tenants.registry.store_name("acme")
        await engine.remember(SECRET, tenant_id=store)
        await engine.recall("Where is the kettle kept?", session_id="s1", tenant_id=store)
        assert await session_history(engine, store, "s1")
        await engine.tenants.delete_tenant("acme")
        assert await session_history(engine, store, "s1") == []
