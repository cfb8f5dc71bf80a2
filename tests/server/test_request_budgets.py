"""Per-request budgets over HTTP: an item or a query over its limit is a 413 in
the error envelope, quickly, and nothing of the request is stored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from recall_engine import RecallEngine
from recall_engine.server import ServerSettings
from tests.server.conftest import LiveServer, error_of, start_server

ITEM_LIMIT = 2000
QUERY_LIMIT = 100


@pytest.fixture
def small(tmp_path, hash_embedder) -> Iterator[LiveServer]:
    engine = RecallEngine(
        tmp_path / "data",
        embedder=hash_embedder,
        max_item_chars=ITEM_LIMIT,
        max_query_chars=QUERY_LIMIT,
    )
    live = start_server(engine, ServerSettings())
    yield live
    live.stop()


def _too_large(response, limit: int, what: str) -> str:
    assert response.status_code == 413, response.text
    detail = error_of(response)
    assert detail["error_code"] == "PAYLOAD_TOO_LARGE"
    assert f"{limit:,}" in detail["message"] and what in detail["message"]
    return str(detail["message"])


def test_an_oversized_memory_is_413_and_nothing_is_stored(small):
    with small.client() as client:
        assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        memories = [
            {"source_id": "ok", "text": "Ada lives in Lyon."},
            {"source_id": "big", "text": "word " * ITEM_LIMIT},
        ]
        response = client.post(
            "/memories/add_memory", json={"tenant_id": "acme", "memories": memories}
        )
        message = _too_large(response, ITEM_LIMIT, "max_item_chars")
        assert "Split" in message
        sources = client.post(
            "/ingestion/upload_knowledge",
            json={"tenant_id": "acme", "app_sources": [{"id": "doc", "text": "x " * ITEM_LIMIT}]},
        )
        _too_large(sources, ITEM_LIMIT, "max_item_chars")
        v1 = client.post("/api/v1/remember", json={"data": "y " * ITEM_LIMIT})
        _too_large(v1, ITEM_LIMIT, "max_item_chars")
        # The connection stays usable, and a memory within the limit is stored.
        fine = client.post(
            "/memories/add_memory",
            json={"tenant_id": "acme", "memories": [{"source_id": "ok", "text": "Ada likes tea."}]},
        )
        assert fine.status_code == 200, fine.text
    store = small.engine.store("acme")
    names = [d.source_id for d in store.graph.documents()]
    assert names == ["ok"]  # neither the oversized memory nor its valid neighbour
    assert len(store.index) == 1


def test_an_oversized_query_is_413_on_every_recall_path(small):
    with small.client() as client:
        assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        long = "why " * QUERY_LIMIT
        for path, body, what in [
            ("/recall/full_recall", {"tenant_id": "acme", "query": long}, "query"),
            ("/recall/recall_preferences", {"tenant_id": "acme", "query": long}, "query"),
            (
                "/recall/full_recall",
                {"tenant_id": "acme", "query": "tea", "additional_context": long},
                "additional_context",
            ),
            ("/recall/boolean_recall", {"tenant_id": "acme", "query": long}, "query"),
            ("/recall/qna", {"tenant_id": "acme", "question": long}, "query"),
            ("/api/v1/recall", {"query_text": long, "query_type": "CHUNKS"}, "query_text"),
        ]:
            _too_large(client.post(path, json=body), QUERY_LIMIT, what)
