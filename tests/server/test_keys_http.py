"""Through a running server: one id never reaches another's store, the admin key
endpoints, revocation on delete, failed-auth limiting, /metrics scope, OpenAPI security."""

from __future__ import annotations

import hashlib
import secrets

from tests.server.conftest import ADMIN_KEY, KEYS, error_of

A = "org/team"
B = "org-team." + hashlib.sha256(A.encode()).hexdigest()[:10]


def test_a_key_of_id_b_cannot_read_list_or_delete_tenant_a(live):
    registry = live.engine.tenants.registry
    with live.client(ADMIN_KEY) as admin:
        for tenant in (A, B):
            assert admin.post("/tenants/create", json={"tenant_id": tenant}).status_code == 200
        added = admin.post(
            "/memories/add_memory",
            json={"tenant_id": A, "memories": [{"source_id": "s1", "text": "A's secret plans"}]},
        )
        assert added.status_code == 200, added.text
    _, b_key = registry.create_key(B)
    with live.client(b_key) as b:
        listed = b.post("/list/data", json={"tenant_id": B, "kind": "memories"})
        assert listed.status_code == 200 and listed.json()["user_memories"] == []
        found = b.post("/recall/recall_preferences", json={"tenant_id": B, "query": "secret plans"})
        assert "secret" not in found.text
        gone = b.delete("/memories/delete_memory", params={"tenant_id": B, "memory_id": "s1"})
        assert gone.status_code == 404
        engine_api = b.post("/api/v1/recall", json={"query": "secret plans", "tenantId": B})
        assert "secret" not in engine_api.text
        assert b.post("/list/data", json={"tenant_id": A}).status_code == 403
    with live.client(ADMIN_KEY) as admin:
        kept = admin.post("/list/data", json={"tenant_id": A, "kind": "memories"}).json()
    assert [m["memory_id"] for m in kept["user_memories"]] == ["s1"]


def test_admin_endpoints_create_list_rotate_revoke(live):
    with live.client(KEYS["acme"]) as tenant:
        refused = tenant.post("/api-keys/create_api_key", json={"tenant_id": "acme"})
        assert refused.status_code == 403 and error_of(refused)["error_code"] == "FORBIDDEN"
        assert tenant.get("/api-keys/list_api_keys").status_code == 403
    with live.client(ADMIN_KEY) as admin:
        created = admin.post("/api-keys/create_api_key", json={"tenant_id": "acme"})
        assert created.status_code == 200, created.text
        new = created.json()
        listed = admin.get("/api-keys/list_api_keys", params={"tenant_id": "acme"})
        assert new["key_id"] in {k["key_id"] for k in listed.json()["keys"]}
        assert new["api_key"] not in listed.text
        assert not any(k in listed.text for k in (ADMIN_KEY, *KEYS.values()))
        rotated = admin.post("/api-keys/rotate_api_key", json={"key_id": new["key_id"]}).json()
        with live.client(new["api_key"]) as old:
            assert old.get("/metrics").status_code == 401
        with live.client(rotated["api_key"]) as fresh:
            assert fresh.get("/metrics").json()["tenant_id"] == "acme"
        revoked = admin.post("/api-keys/revoke_api_key", json={"key_id": rotated["key_id"]})
        assert revoked.status_code == 200
        with live.client(rotated["api_key"]) as dead:
            assert dead.get("/metrics").status_code == 401
        missing = admin.post("/api-keys/revoke_api_key", json={"key_id": rotated["key_id"]})
        assert missing.status_code == 404
        both = admin.post("/api-keys/create_api_key", json={"tenant_id": "acme", "admin": True})
        assert both.status_code == 422


def test_deleting_a_tenant_revokes_its_keys_and_nothing_recreates_it(live):
    with live.client(ADMIN_KEY) as admin:
        assert admin.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
    with live.client(KEYS["acme"]) as acme:
        memory = {"tenant_id": "acme", "memories": [{"text": "kept"}]}
        assert acme.post("/memories/add_memory", json=memory).status_code == 200
        assert acme.delete("/tenants/delete", params={"tenant_id": "acme"}).status_code == 200
        again = acme.post("/api/v1/remember", json={"data": "back?", "tenantId": "acme"})
        assert again.status_code == 401
        assert acme.post("/memories/add_memory", json=memory).status_code == 401
    assert not live.engine.config.tenant_dir("acme").exists()
    assert live.engine.tenants.registry.keys("acme") == []


def test_failed_authentication_is_limited_per_address(make_server):
    from recall_engine.server.auth import FAILURE_BURST
    from recall_engine.server.ratelimit import TokenBuckets

    live = make_server(rate=0)
    auth = live.server.config.app.state.auth
    assert auth.failures.burst == FAILURE_BURST
    auth.failures = TokenBuckets(1e-6, FAILURE_BURST)  # no refill while the test runs
    with live.client(KEYS["acme"]) as good:
        assert all(good.get("/metrics").status_code == 200 for _ in range(60))
    with live.client(None) as client:
        responses = [
            client.get("/metrics", headers={"Authorization": f"Bearer {secrets.token_urlsafe(24)}"})
            for _ in range(200)
        ]
    codes = [r.status_code for r in responses]
    assert codes == [401] * FAILURE_BURST + [429] * (200 - FAILURE_BURST)
    assert error_of(responses[-1])["error_code"] == "RATE_LIMITED"
    assert int(responses[-1].headers["retry-after"]) >= 1
    with live.client(KEYS["acme"]) as good:  # a valid key is still served from that address
        assert good.get("/metrics").status_code == 200


def test_metrics_show_a_tenant_key_its_own_tenant_only(live):
    with live.client(ADMIN_KEY) as admin:
        for tenant in ("acme", "globex"):
            admin.post("/tenants/create", json={"tenant_id": tenant})
        assert admin.get("/metrics").json()["tenants"] == 2
    with live.client(KEYS["acme"]) as acme:
        body = acme.get("/metrics").json()
    assert body["tenant_id"] == "acme" and "tenants" not in body
    assert "globex" not in str(body)


def test_openapi_declares_bearer_security_on_every_authenticated_route(live):
    with live.client(None) as client:
        spec = client.get("/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    assert {"type": "http", "scheme": "bearer"}.items() <= schemes["HTTPBearer"].items()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if path == "/health":
                assert "security" not in operation
                continue
            assert operation.get("security") == [{"HTTPBearer": []}], (method, path)
