"""Tenant id ``*`` is the key store's "every tenant": through a running server it
cannot be made a tenant, a tenant key cannot be asked for it (that would be an
admin key), and nothing done to it touches the admin keys."""

from __future__ import annotations

import pytest
import uvicorn

from recall_engine.server.__main__ import main
from tests.server.conftest import ADMIN_KEY, error_of


def test_tenant_star_is_refused_and_admin_keys_survive(live):
    with live.client(ADMIN_KEY) as admin:
        created = admin.post("/tenants/create", json={"tenant_id": "*"})
        assert created.status_code == 400, created.text
        assert "reserved" in error_of(created)["message"]
        v2 = admin.post("/databases", json={"database": "*"}, headers={"API-Version": "2"})
        assert v2.status_code == 400, v2.text
        remembered = admin.post("/api/v1/remember", json={"data": "x", "tenant_id": "*"})
        assert remembered.status_code == 400, remembered.text
        key = admin.post("/api-keys/create_api_key", json={"tenant_id": "*"})
        assert key.status_code == 422, key.text
        assert "admin=true" in error_of(key)["message"]
        deleted = admin.delete("/tenants/delete", params={"tenant_id": "*"})
        assert deleted.status_code == 404, deleted.text
        listed = admin.get("/api-keys/list_api_keys")
        assert listed.status_code == 200, listed.text
    keys = listed.json()["keys"]
    assert [k["admin"] for k in keys].count(True) == 1  # only the fixture's admin key


def test_serve_refuses_a_tenant_key_for_the_admin_id(tmp_path, monkeypatch):
    for name in ("RECALL_ENGINE_API_KEYS", "RECALL_ENGINE_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)

    def serve(*args, **kwargs):
        raise AssertionError("the server started with a tenant key for '*'")

    monkeypatch.setattr(uvicorn, "run", serve)
    key = "Zq8-wP3kV1rT9xYb"
    with pytest.raises(SystemExit) as info:
        main(["--data-dir", str(tmp_path / "data"), "--api-key", f"*={key}"])
    message = str(info.value.code)
    assert "reserved for admin keys" in message and "--admin-key" in message
    assert key not in message
    assert not (tmp_path / "data").exists()
