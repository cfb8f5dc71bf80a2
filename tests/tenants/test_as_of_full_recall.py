"""The tenant API's full_recall with ``as_of``, over HTTP: nothing stated after
``as_of`` reaches the reply (its chunks, their superseded marks, ``graph_context``
and the forceful relations' extra context), and facts are told as they held then."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from recall_engine import RecallEngine
from recall_engine.server import ServerSettings
from tests.server.conftest import LiveServer, start_server

SOURCES = [
    {"id": "old", "text": "Ann lives in Lyon.", "timestamp": "2023-01-05T10:00:00"},
    {
        "id": "new",
        "text": "Ann moved to Paris.",
        "timestamp": "2025-03-01T09:00:00",
        "relations": {"cortex_source_ids": ["note"]},
    },
    {
        "id": "link",
        "text": "Ann lives near the river.",
        "timestamp": "2023-02-01T10:00:00",
        "relations": {"cortex_source_ids": ["note"]},
    },
    {"id": "note", "text": "Ann works at the harbour.", "timestamp": "2025-04-01T09:00:00"},
]
QUERY = "Where does Ann live? Lyon or Paris"


@pytest.fixture
def live(tmp_path, hash_embedder) -> Iterator[LiveServer]:
    """A running server (as ``tests/server``'s), stopped at teardown."""
    server = start_server(RecallEngine(tmp_path / "data", embedder=hash_embedder), ServerSettings())
    yield server
    server.stop()


def _upload(client) -> None:
    assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
    upload = client.post(
        "/ingestion/upload_knowledge", json={"tenant_id": "acme", "app_sources": SOURCES}
    )
    assert upload.status_code == 200 and upload.json()["success_count"] == len(SOURCES)


def _full_recall(client, **body) -> dict:
    response = client.post(
        "/recall/full_recall",
        json={"tenant_id": "acme", "query": QUERY, "graph_context": True, **body},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _said(reply: dict) -> str:
    """Every text of the reply that could tell what was said: chunks, extra context
    and the graph context's relations."""
    parts = [c["chunk_content"] for c in reply["chunks"]]
    parts += [c["chunk_content"] for c in (reply.get("additional_context") or {}).values()]
    graph = reply.get("graph_context") or {}
    for path in [*graph.get("query_paths", []), *graph.get("chunk_relations", [])]:
        parts += [str(t) for t in path["triplets"]]
        parts.append(path.get("combined_context") or "")
    return "\n".join(parts)


def test_graph_context_as_of_leaves_out_what_was_said_later(live):
    with live.client() as client:
        _upload(client)
        now = _full_recall(client)
        then = _full_recall(client, as_of="2024-01-01")
    assert "Paris" in _said(now)  # without as_of, the move is known
    assert "Paris" not in _said(then), _said(then)
    assert {c["source_id"] for c in then["chunks"]} <= {"old", "link"}


def test_thinking_mode_as_of_attaches_no_source_stated_later(live):
    with live.client() as client:
        _upload(client)
        now = _full_recall(client, mode="thinking", max_results=5)
        then = _full_recall(client, mode="thinking", max_results=5, as_of="2024-01-01")
    assert "harbour" in _said(now)  # the linked note, stated in 2025
    assert "harbour" not in _said(then) and "Paris" not in _said(then), _said(then)
    assert [c["source_id"] for c in then["chunks"] if c["source_id"] == "link"]


def test_v2_query_temporal_now_answers_from_what_was_said_by_then(live):
    with live.client() as client:
        _upload(client)
        for mode in ("thinking", "fast"):
            body = {"database": "acme", "query": QUERY, "mode": mode}
            now = client.post("/query", json=body)
            then = client.post("/query", json={**body, "temporal_now": "2024-01-01"})
            assert now.status_code == then.status_code == 200, then.text
            assert "Paris" in now.text  # without temporal_now, the move is known
            assert "Paris" not in then.text and "harbour" not in then.text, (mode, then.json())
            assert "Lyon" in then.text
