"""The key store: digests only, create/list/revoke/rotate, the seed rule,
deleting a tenant revokes its keys, other processes' changes are seen."""

from __future__ import annotations

import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.tenants.errors import ApiKeyNotFoundError
from recall_engine.tenants.registry import ADMIN, TenantRegistry

OLD = "acme-old-key-0000000000"
NEW = "acme-new-key-1111111111"


@pytest.fixture
def registry(tmp_path):
    registry = TenantRegistry(tmp_path)
    yield registry
    registry.close()


def test_create_list_rotate_revoke(registry, tmp_path):
    record, key = registry.create_key("acme")
    admin, admin_key = registry.create_key(ADMIN)
    assert key.startswith("rek_") and len(key) >= 40 and record.prefix == key[:8]
    assert registry.key_tenant(key) == "acme" and registry.key_tenant(admin_key) == ADMIN
    listed = registry.keys()
    assert [r.key_id for r in listed] == [record.key_id, admin.key_id]
    assert all(key not in repr(r) and admin_key not in repr(r) for r in listed)
    rotated, fresh = registry.rotate_key(record.key_id)
    assert rotated.tenant_id == "acme" and rotated.key_id != record.key_id
    assert registry.key_tenant(key) is None and registry.key_tenant(fresh) == "acme"
    registry.revoke_key(rotated.key_id)
    assert registry.key_tenant(fresh) is None
    with pytest.raises(ApiKeyNotFoundError):
        registry.revoke_key(rotated.key_id)
    raw = (tmp_path / "tenants.sqlite3").read_bytes()
    assert not any(k.encode() in raw for k in (key, fresh, admin_key))


def test_bad_keys_and_tenants_are_refused(registry):
    with pytest.raises(InvalidInputError, match="16 characters"):
        registry.create_key("acme", key="short")
    with pytest.raises(InvalidInputError, match="tenant_id"):
        registry.create_key("a\x00b")
    registry.create_key("acme", key=OLD)
    with pytest.raises(InvalidInputError, match="already"):
        registry.create_key("globex", key=OLD)
    assert registry.key_tenant(OLD) == "acme"


def test_seed_fills_only_a_store_that_never_had_a_key(tmp_path):
    registry = TenantRegistry(tmp_path)
    assert registry.seed([("acme", OLD)]) is True
    assert registry.seed([("acme", OLD)]) is False  # a restart with the same flags
    with pytest.raises(InvalidInputError, match="keys rotate") as caught:
        registry.seed([("acme", NEW)])  # a restart with --api-key acme=NEW
    assert NEW not in str(caught.value) and OLD not in str(caught.value)
    with pytest.raises(InvalidInputError):
        registry.seed([("globex", OLD)])  # a known key given for another tenant
    assert registry.key_tenant(NEW) is None and registry.key_tenant(OLD) == "acme"
    records = registry.keys()
    for record in records:
        registry.revoke_key(record.key_id)
    registry.close()
    again = TenantRegistry(tmp_path)
    with pytest.raises(InvalidInputError):
        again.seed([("acme", OLD)])  # an emptied store is not reopened to seeding
    assert again.key_tenant(OLD) is None
    again.close()


def test_a_store_from_before_counts_as_seeded(tmp_path):
    import sqlite3

    from recall_engine.tenants.registry import key_digest

    db = sqlite3.connect(tmp_path / "tenants.sqlite3")
    db.execute("CREATE TABLE api_keys (digest TEXT PRIMARY KEY, tenant_id TEXT, created_at TEXT)")
    db.execute("INSERT INTO api_keys VALUES (?, 'acme', '2025-01-01')", (key_digest(OLD),))
    db.commit()
    db.close()
    registry = TenantRegistry(tmp_path)
    assert registry.key_tenant(OLD) == "acme"
    assert registry.keys()[0].key_id.startswith("key_") and registry.keys()[0].prefix == ""
    with pytest.raises(InvalidInputError):
        registry.seed([("acme", NEW)])
    registry.close()


def test_deleting_a_tenant_revokes_its_keys(registry):
    registry.create("acme", [])
    registry.create_key("acme", key=OLD)
    _, other = registry.create_key("globex")
    revoked = registry.delete("acme")
    assert [r.tenant_id for r in revoked] == ["acme"]
    assert registry.key_tenant(OLD) is None and registry.key_tenant(other) == "globex"


def test_a_change_by_another_process_is_seen_at_the_next_lookup(tmp_path):
    server = TenantRegistry(tmp_path)
    record = server.add_key(OLD, "acme")
    assert server.key_tenant(OLD) == "acme"
    cli = TenantRegistry(tmp_path)  # `recall-engine keys revoke` while a server runs
    cli.revoke_key(record.key_id)
    _, created = cli.create_key("globex")
    cli.close()
    assert server.key_tenant(OLD) is None
    assert server.key_tenant(created) == "globex"
    server.close()


def test_the_admin_id_is_no_tenant_and_deleting_it_keeps_admin_keys(registry):
    _, admin_key = registry.create_key(ADMIN)
    with pytest.raises(InvalidInputError, match="reserved"):
        registry.create(ADMIN, [])
    assert ADMIN not in registry.tenants()
    # a row of that id, as an earlier version could write it: deleting it
    # deletes neither the admin keys nor anyone else's
    with registry._tx() as conn:
        conn.execute(
            "INSERT INTO tenants (id, schema, created_at, store) VALUES (?, '[]', 'x', 'star')",
            (ADMIN,),
        )
    registry._reload()
    assert registry.store_name(ADMIN) == "star"
    assert registry.delete(ADMIN) == []
    assert registry.key_tenant(admin_key) == ADMIN
