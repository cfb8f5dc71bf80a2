"""Bad requests get the envelope with a 4xx (never a 500 or a dropped connection),
expired memories stay out of every search type, no error names the data dir, and
the OpenAPI document declares the error responses (issue 16, findings 6 and 7)."""

from __future__ import annotations

import types

import httpx
import pytest

from recall_engine.core.errors import EmbeddingModelMismatchError
from recall_engine.server.v2_errors import is_v2
from tests.server.conftest import error_of

DEEP = b"[" * 100_000 + b"]" * 100_000


def _raw_json(text: str) -> dict:
    """A body as JSON text, so it can carry an escaped lone surrogate."""
    return {"content": text.encode(), "headers": {"content-type": "application/json"}}


BAD_REQUESTS = [
    # (method, path, request options, status, code)
    (
        "POST",
        "/ingestion/upload_knowledge",
        {
            "content": b'{"tenant_id": "acme", "app_sources": ' + DEEP + b"}",
            "headers": {"content-type": "application/json"},
        },
        400,
        "INVALID_PARAMETERS",
    ),
    (
        "POST",
        "/api/v1/remember",
        {"content": b'{"data": ' + DEEP + b"}", "headers": {"content-type": "application/json"}},
        400,
        "INVALID_PARAMETERS",
    ),
    (
        "POST",
        "/list/data",
        {"json": {"tenant_id": "acme", "filters": {"tenant_metadata": [1, 2]}}},
        422,
        "VALIDATION_ERROR",
    ),
    (
        "POST",
        "/list/data",
        {"json": {"tenant_id": "acme", "filters": {"source_fields": "x"}}},
        422,
        "VALIDATION_ERROR",
    ),
    (
        "POST",
        "/list/data",
        {"json": {"tenant_id": "acme", "filters": {"sorce_fields": {"title": "x"}}}},
        422,
        "VALIDATION_ERROR",
    ),
    *[
        (
            "POST",
            "/ingestion/upload_knowledge",
            {"json": {"tenant_id": "acme", "app_sources": 5}},
            422,
            "VALIDATION_ERROR",
        )
    ]
    * 5,
    (
        "POST",
        "/ingestion/upload_knowledge",
        {"data": {"tenant_id": "acme", "app_sources": "5"}},
        422,
        "VALIDATION_ERROR",
    ),
    (
        "POST",
        "/api/v1/recall",
        _raw_json('{"query": "Ada \\ud800", "tenant_id": "acme"}'),
        422,
        "VALIDATION_ERROR",
    ),
    (
        "POST",
        "/api/v1/recall",
        _raw_json('{"query": "Ada", "tenant_id": "acme", "session_id": "s\\ud800"}'),
        400,
        "INVALID_PARAMETERS",
    ),
    # a time is ISO 8601 text: a number is not read as seconds since 1970
    ("POST", "/api/v1/recall", {"json": {"query": "Ada", "as_of": 12345}}, 422, "VALIDATION_ERROR"),
]


def _port(response: httpx.Response) -> int:
    """The client-side port of the connection the response came on."""
    stream = response.extensions["network_stream"]
    return int(stream.get_extra_info("client_addr")[1])


def test_bad_requests_get_the_envelope_on_one_kept_alive_connection(live):
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with live.client(limits=limits) as client:
        assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        first = client.get("/health")
        for method, path, options, status, code in BAD_REQUESTS:
            response = client.request(method, path, **options)
            assert response.status_code == status, (path, response.text[:300])
            assert error_of(response)["error_code"] == code
            after = client.get("/health")  # the same connection still answers
            assert after.status_code == 200
            assert _port(after) == _port(first), f"{path} dropped the connection"


def test_an_unexpected_error_keeps_the_connection(live, monkeypatch):
    async def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(live.engine.tenants, "listing", boom)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    with live.client(limits=limits) as client:
        first = client.get("/health")
        for _ in range(3):
            response = client.post("/list/data", json={"tenant_id": "acme"})
            assert response.status_code == 500
            assert error_of(response)["error_code"] == "INTERNAL_ERROR"
            assert "a bug" not in response.text
        after = client.get("/health")
        assert after.status_code == 200 and _port(after) == _port(first)


def test_no_error_names_the_data_dir(live, monkeypatch):
    root = live.engine.config.data_dir
    with live.client() as client:
        empty = client.post("/api/v1/recall", json={"query": "x", "tenant_id": "nobody"})
        assert empty.status_code == 422
        assert str(root) not in empty.text and str(root.resolve()) not in empty.text

        def mismatch(*args, **kwargs):  # storage errors name their folder
            raise EmbeddingModelMismatchError(f"The store at {root.resolve()}/tenants/t was built")

        monkeypatch.setattr(live.engine, "store", mismatch)
        response = client.post("/api/v1/recall", json={"query": "x", "tenant_id": "t"})
    assert response.status_code == 400
    assert str(root.resolve()) not in response.text
    assert "<data dir>/tenants/t" in error_of(response)["message"]


SEARCH_TYPES = ["CHUNKS", "CHUNKS_LEXICAL", "CYPHER", "GRAPH_COMPLETION", "RAG_COMPLETION"]


@pytest.mark.parametrize("search_type", SEARCH_TYPES)
def test_expired_memories_are_never_recalled(live, monkeypatch, search_type):
    import recall_engine.storage.expiry as expiry

    memories = [
        {"text": "Ada met Babbage in London.", "expiry_time": 60},
        {"text": "Grace drank tea in Paris."},
    ]
    body = {"query": "Ada Babbage London", "query_type": search_type, "tenant_id": "acme"}
    if search_type == "CYPHER":
        body["query"] = "MATCH (c:Chunk) RETURN c.text"
    with live.client() as client:
        assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        added = client.post(
            "/memories/add_memory", json={"tenant_id": "acme", "memories": memories}
        )
        assert added.status_code == 200
        before = client.post("/api/v1/recall", json={**body, "only_context": True})
        assert before.status_code == 200 and "Babbage" in before.text  # alive: found
        later = expiry.time.time() + 120
        monkeypatch.setattr(expiry, "time", types.SimpleNamespace(time=lambda: later))
        response = client.post("/api/v1/recall", json={**body, "only_context": True})
        assert response.status_code == 200, response.text
        assert "Babbage" not in response.text
        listed = client.post("/list/data", json={"tenant_id": "acme", "kind": "memories"})
    assert [m["memory_content"] for m in listed.json()["user_memories"]] == [
        "Grace drank tea in Paris."
    ]


def test_openapi_declares_the_error_responses_with_the_envelope(live):
    with live.client(key=None) as client:
        spec = client.get("/openapi.json").json()
    envelope = spec["components"]["schemas"]["ActualErrorResponse"]
    assert envelope["properties"]["detail"]["$ref"].endswith("/ErrorResponse")
    operations = [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if path not in ("/health",)
    ]
    assert len(operations) >= 25
    v2 = spec["components"]["schemas"]["V2ErrorResponse"]  # v1's detail beside v2's fields
    assert v2["properties"]["detail"]["$ref"].endswith("/ErrorResponse")
    for path, method, op in operations:
        # A v2 path answers a validation failure with 400 (no 422), in v2's shape.
        model, statuses = (
            ("V2ErrorResponse", ("400", "409", "413", "415", "501"))
            if is_v2(path)
            else ("ActualErrorResponse", ("400", "409", "413", "415", "422", "501"))
        )
        for status in statuses:
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": f"#/components/schemas/{model}"}, (path, method, status)


def test_upload_knowledge_names_a_tenant_id_of_the_wrong_type(live):
    with live.client() as client:
        wrong = client.post("/ingestion/upload_knowledge", json={"tenant_id": 5, "app_sources": []})
        missing = client.post("/ingestion/upload_knowledge", json={"app_sources": []})
    assert wrong.status_code == 422 and error_of(wrong)["message"] == "tenant_id: must be a string"
    assert (
        missing.status_code == 422 and error_of(missing)["message"] == "tenant_id: field required"
    )
