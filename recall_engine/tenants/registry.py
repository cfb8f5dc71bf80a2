"""The tenant registry: which tenants exist, their store names and metadata
schema, their sub-tenants, and the API key store.

One SQLite file in the data dir (``tenants.sqlite3``); every change is one
transaction, so the file is never half-written, and other processes (the
``recall-engine keys`` command) may change it while a server runs: every
lookup first asks SQLite whether another connection committed since the last
read, and reloads if so. A revoked key is refused by the next request.

Ids and stores: each tenant row keeps the engine name of its store
(``safe_name`` of the id, an injective mapping), and each sub-tenant row the
name of its datasets. Rows written before ids mapped injectively keep the name
they were stored under (``legacy_name``), so existing stores still open; where
two such rows shared one store, the older keeps it and the newer gets a new,
empty one. An id whose name is another tenant's store is refused.

API keys are stored as SHA-256 digests only (keys are random and long, so a
fast hash is enough), with a short key id, the first characters of the key
(to recognise it in a list) and the tenant. A presented key is compared with
every stored digest in constant time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall_engine.core.errors import InvalidInputError
from recall_engine.tenants.convert import legacy_name, safe_name
from recall_engine.tenants.errors import TenantAlreadyExistsError, TenantNotFoundError
from recall_engine.tenants.keystore import ADMIN, KeyRecord, KeyStore, key_digest, new_key_id

__all__ = ["ADMIN", "REGISTRY_FILE", "KeyRecord", "TenantRecord", "TenantRegistry", "key_digest"]

REGISTRY_FILE = "tenants.sqlite3"

logger = logging.getLogger("recall_engine.tenants")

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, schema TEXT NOT NULL, "
    "created_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS api_keys (digest TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, "
    "created_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sub_tenants (tenant_id TEXT NOT NULL, sub_tenant_id TEXT NOT NULL, "
    "PRIMARY KEY (tenant_id, sub_tenant_id))",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
# Columns added since the first schema: (table, column); filled by _migrate.
_ADDED = (("tenants", "store"), ("sub_tenants", "name"), ("api_keys", "key_id"),
          ("api_keys", "prefix"))  # fmt: skip


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class TenantRecord:
    tenant_id: str
    metadata_schema: list[dict[str, Any]]
    created_at: str
    store: str = ""
    """The engine name of the tenant's store."""

    @property
    def filterable(self) -> frozenset[str]:
        """Tenant metadata fields declared with ``enable_match``."""
        return frozenset(f["name"] for f in self.metadata_schema if f.get("enable_match"))


class TenantRegistry(KeyStore):
    """Tenants and API keys of one data dir; safe to share between threads."""

    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / REGISTRY_FILE
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._depth = 0
        with self._tx():
            for statement in _SCHEMA:
                self._db.execute(statement)
            self._migrate()
        self._tenants: dict[str, TenantRecord] = {}
        self._store_owner: dict[str, str] = {}
        self._keys: list[tuple[str, str]] = []
        self._version = -1
        self._reload()

    def _migrate(self) -> None:
        for table, column in _ADDED:
            names = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in names:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
        owners: dict[str, str] = {}
        rows = self._db.execute("SELECT id, store FROM tenants ORDER BY created_at, id").fetchall()
        for tenant_id, store in rows:
            if store is not None:
                owners[store] = tenant_id
        for tenant_id, store in rows:
            if store is not None:
                continue
            store = legacy_name(tenant_id)
            if store in owners:  # shared one store with an older row: the older keeps it
                logger.warning(
                    "tenant %r shared its store with tenant %r; it gets a new, empty store",
                    tenant_id,
                    owners[store],
                )
                store = f"{safe_name(tenant_id, what='tenant_id')}.{secrets.token_hex(4)}"
            owners[store] = tenant_id
            self._db.execute("UPDATE tenants SET store = ? WHERE id = ?", (store, tenant_id))
        for tenant_id, sub in self._db.execute(
            "SELECT tenant_id, sub_tenant_id FROM sub_tenants WHERE name IS NULL"
        ).fetchall():
            self._db.execute(
                "UPDATE sub_tenants SET name = ? WHERE tenant_id = ? AND sub_tenant_id = ?",
                (legacy_name(sub), tenant_id, sub),
            )
        for (digest,) in self._db.execute(
            "SELECT digest FROM api_keys WHERE key_id IS NULL"
        ).fetchall():
            self._db.execute(
                "UPDATE api_keys SET key_id = ?, prefix = '' WHERE digest = ?",
                (new_key_id(), digest),
            )
        if self._db.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone():
            self._mark_seeded()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[None]:
        """One transaction (the outermost of nested ones), holding the thread lock."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
            finally:
                self._depth = 0

    def _reload(self) -> None:
        with self._lock:
            rows = self._db.execute("SELECT id, schema, created_at, store FROM tenants").fetchall()
            self._tenants = {r[0]: TenantRecord(r[0], json.loads(r[1]), r[2], r[3]) for r in rows}
            self._store_owner = {r.store: r.tenant_id for r in self._tenants.values()}
            self._keys = list(self._db.execute("SELECT digest, tenant_id FROM api_keys"))
            self._version = self._db.execute("PRAGMA data_version").fetchone()[0]

    def _fresh(self) -> None:
        """Reload when another connection (another process) committed a change."""
        with self._lock:
            if self._db.execute("PRAGMA data_version").fetchone()[0] != self._version:
                self._reload()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # tenants

    def create(self, tenant_id: str, metadata_schema: list[dict[str, Any]]) -> TenantRecord:
        """Register a tenant and the name of its store.

        Raises:
            InvalidInputError: a bad id.
            TenantAlreadyExistsError: the tenant exists, or its id names another tenant's store.
        """
        with self._lock:
            self._fresh()
            store = self.store_name(tenant_id)
            try:
                self._db.execute(
                    "INSERT INTO tenants (id, schema, created_at, store) VALUES (?, ?, ?, ?)",
                    (tenant_id, json.dumps(metadata_schema), _now(), store),
                )
            except sqlite3.IntegrityError:
                raise TenantAlreadyExistsError(
                    f"tenant {tenant_id!r} already exists; use it, or delete it first."
                ) from None
            self._reload()
            return self._tenants[tenant_id]

    def get(self, tenant_id: str) -> TenantRecord:
        """Raises: TenantNotFoundError."""
        self._fresh()
        record = self._tenants.get(tenant_id)
        if record is None:
            raise TenantNotFoundError(
                f"tenant {tenant_id!r} does not exist; create it with create_tenant() "
                "(POST /tenants/create) first."
            )
        return record

    def exists(self, tenant_id: str) -> bool:
        self._fresh()
        return tenant_id in self._tenants

    def tenants(self) -> list[str]:
        self._fresh()
        return sorted(self._tenants)

    def store_name(self, tenant_id: str) -> str:
        """The engine name of ``tenant_id``'s store: its row's, else ``safe_name``.

        Raises:
            InvalidInputError: a bad id.
            TenantAlreadyExistsError: the name is the store of another tenant.
        """
        record = self._tenants.get(tenant_id)
        if record is not None:
            return record.store
        name = safe_name(tenant_id, what="tenant_id")
        owner = self._store_owner.get(name)
        if owner is not None and owner != tenant_id:
            raise TenantAlreadyExistsError(
                f"tenant_id {tenant_id!r} names the store of tenant {owner!r} (an id stored "
                "before ids mapped one to one); pick another tenant_id."
            )
        return name

    def owner_of(self, store: str) -> str:
        """The tenant id whose store is ``store`` (``store`` itself when none is registered)."""
        return self._store_owner.get(store, store)

    def delete(self, tenant_id: str) -> list[KeyRecord]:
        """Forget a tenant, its sub-tenants and its API keys; returns the revoked keys."""
        with self._tx():
            revoked = self.keys(tenant_id)
            self._db.execute("DELETE FROM tenants WHERE id = ?", (tenant_id,))
            self._db.execute("DELETE FROM sub_tenants WHERE tenant_id = ?", (tenant_id,))
            self._db.execute("DELETE FROM api_keys WHERE tenant_id = ?", (tenant_id,))
        self._reload()
        return revoked

    def sub_tenant_name(self, tenant_id: str, sub_tenant_id: str) -> str:
        """The engine name of a sub-tenant's datasets: its row's, else ``safe_name``.

        Raises:
            InvalidInputError: a bad id, or one whose name another sub-tenant's row holds.
        """
        with self._lock:
            rows = self._db.execute(
                "SELECT sub_tenant_id, name FROM sub_tenants WHERE tenant_id = ?", (tenant_id,)
            ).fetchall()
        known = dict(rows)
        if sub_tenant_id in known:
            return str(known[sub_tenant_id])
        name = safe_name(sub_tenant_id, what="sub_tenant_id")
        for other, taken in known.items():
            if taken == name:
                raise InvalidInputError(
                    f"sub_tenant_id {sub_tenant_id!r} names the data of sub-tenant {other!r} "
                    "(an id stored before ids mapped one to one); pick another sub_tenant_id."
                )
        return name

    def add_sub_tenant(self, tenant_id: str, sub_tenant_id: str) -> None:
        name = self.sub_tenant_name(tenant_id, sub_tenant_id)
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO sub_tenants (tenant_id, sub_tenant_id, name) "
                "VALUES (?, ?, ?)",
                (tenant_id, sub_tenant_id, name),
            )

    def sub_tenants(self, tenant_id: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT sub_tenant_id FROM sub_tenants WHERE tenant_id = ? ORDER BY sub_tenant_id",
                (tenant_id,),
            ).fetchall()
        return [r[0] for r in rows]
