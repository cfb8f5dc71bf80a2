"""Auth, rate limiting, body limit and every error code, through a running server."""

from __future__ import annotations

import pytest

from recall_engine.core.errors import StoreLockedError
from tests.server.conftest import ADMIN_KEY, KEYS, error_of

RECALL = {"tenant_id": "acme", "query": "dark mode"}


def _tenant(client, tenant="acme", **extra):
    response = client.post("/tenants/create", json={"tenant_id": tenant, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def test_health_and_openapi_need_no_key(live):
    with live.client(key=None) as client:
        assert client.get("/health").json() == {"status": "ok"}
        spec = client.get("/openapi.json").json()
    for path in (
        "/recall/full_recall",
        "/recall/recall_preferences",
        "/recall/boolean_recall",
        "/memories/add_memory",
        "/ingestion/upload_knowledge",
        "/tenants/create",
        "/api/v1/recall",
        "/api/v1/remember",
    ):
        assert path in spec["paths"], path


def test_missing_and_invalid_keys_are_401(live):
    with live.client(key=None) as client:
        response = client.post("/recall/full_recall", json=RECALL)
        assert response.status_code == 401
        assert error_of(response)["error_code"] == "UNAUTHORIZED"
        assert response.headers["www-authenticate"] == "Bearer"
        basic = client.post(
            "/recall/full_recall", json=RECALL, headers={"Authorization": "Basic x"}
        )
        assert basic.status_code == 401
    with live.client(key="not-a-key-at-all-xxxx") as client:
        response = client.post("/recall/full_recall", json=RECALL)
        assert response.status_code == 401
        assert error_of(response)["error_code"] == "UNAUTHORIZED"


def test_a_key_of_another_tenant_is_403(live):
    with live.client(ADMIN_KEY) as admin:
        _tenant(admin, "acme")
        _tenant(admin, "globex")
    with live.client(KEYS["globex"]) as client:
        response = client.post("/recall/full_recall", json=RECALL)
        assert response.status_code == 403
        assert error_of(response)["error_code"] == "FORBIDDEN"
        assert client.get("/tenants/monitor", params={"tenant_id": "acme"}).status_code == 403
    with live.client(KEYS["acme"]) as client:
        assert client.post("/recall/full_recall", json=RECALL).status_code == 200


def test_keys_are_stored_hashed(live):
    raw = live.engine.tenants.registry.path.read_bytes()
    assert ADMIN_KEY.encode() not in raw and KEYS["acme"].encode() not in raw


def test_tenant_codes_404_and_409(live):
    with live.client() as client:
        missing = client.post("/recall/full_recall", json={"tenant_id": "nobody", "query": "x"})
        assert missing.status_code == 404
        assert error_of(missing)["error_code"] == "TENANT_NOT_FOUND"
        _tenant(client)
        again = client.post("/tenants/create", json={"tenant_id": "acme"})
        assert again.status_code == 409
        assert error_of(again)["error_code"] == "TENANT_ALREADY_EXISTS"
        source = client.post("/fetch/content", json={"tenant_id": "acme", "source_id": "nope"})
        assert source.status_code == 404
        assert error_of(source)["error_code"] == "SOURCE_NOT_FOUND"
        unknown_path = client.get("/no/such/path")
        assert unknown_path.status_code == 404
        assert error_of(unknown_path)["error_code"] == "NOT_FOUND"


@pytest.mark.parametrize(
    "body",
    [
        {"tenant_id": "acme"},
        {"tenant_id": "acme", "query": "x", "alpha": 2},
        {"tenant_id": "acme", "query": "x", "alpha": "sometimes"},
        {"tenant_id": "acme", "query": "x", "mode": "slow"},
        {"tenant_id": "acme", "query": "x", "recency_bias": -1},
        {"tenant_id": "acme", "query": "x", "max_results": 0},
    ],
)
def test_validation_errors_are_422(live, body):
    with live.client() as client:
        response = client.post("/recall/full_recall", json=body)
    assert response.status_code == 422
    assert error_of(response)["error_code"] == "VALIDATION_ERROR"


def test_invalid_parameters_are_400(live):
    with live.client() as client:
        _tenant(client, tenant_metadata_schema=[{"name": "dept", "enable_match": True}])
        undeclared = client.post(
            "/recall/full_recall", json={**RECALL, "metadata_filters": {"team": "a"}}
        )
        assert undeclared.status_code == 400
        detail = error_of(undeclared)
        assert detail["error_code"] == "INVALID_PARAMETERS" and "'team'" in detail["message"]
        for bad in (
            {"dept": {"$in": ["a"]}},
            {"$or": []},
            {"additional_metadata": {"k": {"$gte": 1}}},
        ):
            response = client.post("/recall/full_recall", json={**RECALL, "metadata_filters": bad})
            assert response.status_code == 400, bad
            assert "operator" in error_of(response)["message"]
        bad_sub = client.post("/recall/full_recall", json={**RECALL, "sub_tenant_id": "a\x00b"})
        assert bad_sub.status_code == 400


def test_body_limit_is_413(make_server):
    live = make_server(max_body_bytes=2000)
    with live.client() as client:
        response = client.post("/recall/full_recall", json={**RECALL, "query": "x" * 5000})
    assert response.status_code == 413
    assert error_of(response)["error_code"] == "PAYLOAD_TOO_LARGE"


def test_rate_limit_is_429_with_retry_after(make_server):
    live = make_server(rate=0.5, burst=2)
    with live.client() as client:
        codes = [client.get("/tenants/sub_tenant_ids", params={"tenant_id": "x"}) for _ in range(3)]
    assert [c.status_code for c in codes[:2]] == [404, 404]
    assert codes[2].status_code == 429
    assert error_of(codes[2])["error_code"] == "RATE_LIMITED"
    assert int(codes[2].headers["retry-after"]) >= 1


def test_unexpected_errors_are_500_without_a_trace(live, monkeypatch):
    async def boom(*args, **kwargs):
        raise RuntimeError("secret at /srv/private/file.py line 12")

    monkeypatch.setattr(live.engine.tenants, "full_recall", boom)
    with live.client() as client:
        response = client.post("/recall/full_recall", json=RECALL)
    assert response.status_code == 500
    detail = error_of(response)
    assert detail["error_code"] == "INTERNAL_ERROR"
    assert "secret" not in response.text and "Traceback" not in response.text


def test_store_unavailable_is_503(live, monkeypatch):
    with live.client() as client:
        _tenant(client)

        def locked(*args, **kwargs):
            raise StoreLockedError("the store is held by process 4242")

        monkeypatch.setattr(live.engine, "store", locked)
        response = client.post("/recall/full_recall", json=RECALL)
    assert response.status_code == 503
    assert error_of(response)["error_code"] == "SERVICE_UNAVAILABLE"


def test_precondition_is_422_and_raw_embeddings_are_501(live):
    with live.client() as client:
        response = client.post(
            "/api/v1/recall", json={"queryText": "anything", "tenantId": "empty"}
        )
        assert response.status_code == 422
        assert error_of(response)["error_code"] == "PRECONDITION_FAILED"
        for method, path in (
            ("POST", "/embeddings/insert_raw_embeddings"),
            ("POST", "/embeddings/search_raw_embeddings"),
            ("POST", "/embeddings/filter_raw_embeddings"),
            ("DELETE", "/embeddings/delete_raw_embeddings"),
        ):
            response = client.request(method, path, json={})
            assert response.status_code == 501, path
            assert error_of(response)["error_code"] == "NOT_IMPLEMENTED"


def test_engine_errors_map_by_class():
    from recall_engine.core import errors as core
    from recall_engine.server.errors import status_of

    class PermissionDeniedError(core.UsageError):
        pass

    assert status_of(core.RecallPreconditionError("x")) == (422, "PRECONDITION_FAILED")
    assert status_of(core.LLMPaymentRequiredError("x")) == (402, "PAYMENT_REQUIRED")
    assert status_of(PermissionDeniedError("x")) == (403, "FORBIDDEN")
    assert status_of(core.InvalidInputError("x")) == (400, "INVALID_PARAMETERS")
    assert status_of(core.StoreError("x")) == (503, "SERVICE_UNAVAILABLE")
    assert status_of(KeyError("x")) == (500, "INTERNAL_ERROR")
