"""``recall-engine keys``: create/rotate print the key once (alone on stdout),
list never shows a key or a digest, revoke ends a key; and ``serve`` refuses a
seed flag naming a key the store lacks."""

from __future__ import annotations

import json

from recall_engine import cli
from recall_engine.server.__main__ import main as serve_main
from recall_engine.tenants.registry import TenantRegistry, key_digest


def _keys(data, *args, capsys):
    status = cli.main(["--data-dir", str(data), "keys", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_create_list_rotate_revoke(tmp_path, capsys):
    status, key, err = _keys(tmp_path, "create", "acme", capsys=capsys)
    key = key.strip()
    assert status == 0 and key.startswith("rek_") and "shown this once" in err
    status, admin_key, _ = _keys(tmp_path, "create", "--admin", capsys=capsys)
    admin_key = admin_key.strip()
    status, listing, _ = _keys(tmp_path, "list", "--json", capsys=capsys)
    rows = json.loads(listing)
    assert [(r["tenant_id"], r["admin"]) for r in rows] == [("acme", False), (None, True)]
    for secret in (key, admin_key, key_digest(key), key_digest(admin_key)):
        assert secret not in listing
    status, plain, _ = _keys(tmp_path, "list", "--for-tenant", "acme", capsys=capsys)
    assert plain.count("\n") == 1 and key[:8] in plain and key not in plain
    status, fresh, _ = _keys(tmp_path, "rotate", rows[0]["key_id"], capsys=capsys)
    fresh = fresh.strip()
    registry = TenantRegistry(tmp_path)
    assert registry.key_tenant(key) is None and registry.key_tenant(fresh) == "acme"
    new_id = registry.keys("acme")[0].key_id
    assert _keys(tmp_path, "revoke", new_id, capsys=capsys)[0] == 0
    assert registry.key_tenant(fresh) is None
    registry.close()
    status, _, err = _keys(tmp_path, "revoke", new_id, capsys=capsys)
    assert status == 2 and "no API key" in err


def test_serve_refuses_a_seed_flag_the_store_lacks(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RECALL_ENGINE_API_KEYS", raising=False)
    monkeypatch.delenv("RECALL_ENGINE_ADMIN_KEY", raising=False)
    old = "acme-old-key-0000000000"
    registry = TenantRegistry(tmp_path)
    registry.seed([("acme", old)])
    registry.close()
    new = "acme-new-key-1111111111"
    try:
        serve_main(["--data-dir", str(tmp_path), "--api-key", f"acme={new}"])
    except SystemExit as exc:
        message = str(exc)
    else:
        raise AssertionError("serve started with a key the store lacks")
    assert "keys rotate" in message and new not in message and old not in message
    registry = TenantRegistry(tmp_path)
    assert registry.key_tenant(new) is None and registry.key_tenant(old) == "acme"
    registry.close()


def test_a_malformed_seed_entry_is_not_echoed(tmp_path, monkeypatch):
    monkeypatch.setenv("RECALL_ENGINE_API_KEYS", "acme-secret-key-without-a-tenant")
    try:
        serve_main(["--data-dir", str(tmp_path)])
    except SystemExit as exc:
        assert "acme-secret" not in str(exc) and "entry 1" in str(exc)
    else:
        raise AssertionError("serve accepted a malformed entry")


def test_a_tenant_key_for_the_admin_id_is_refused(tmp_path, capsys):
    # '*' is how the key store marks admin keys: a "tenant key" for it would act
    # in every tenant without the caller having asked for that.
    status, out, err = _keys(tmp_path, "create", "*", capsys=capsys)
    assert status == 2 and out == "" and "keys create --admin" in err
    status, listing, _ = _keys(tmp_path, "list", "--json", capsys=capsys)
    assert json.loads(listing) == []
