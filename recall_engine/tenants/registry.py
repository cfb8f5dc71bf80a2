"""The tenant registry: which tenants exist, their store names and metadata
schema, their sub-tenants, and the API key store.

One SQLite file in the data dir (``tenants.sqlite3``), or tables of the shared
state store (Postgres, ``state.postgres``); every change is one transaction,
so the store is never half-written, and other processes (the ``recall-engine
keys`` command, other replicas) may change it while a server runs: every
lookup first asks the database whether another connection committed since the
last read (``SqlDatabase.data_version``), and reloads if so. A revoked key is
refused by the next request.

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
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from recall_engine.core.errors import InvalidInputError
from recall_engine.state.sql import Connection, SqlDatabase
from recall_engine.state.sqlite import SqliteFile
from recall_engine.tenants.errors import TenantAlreadyExistsError, TenantNotFoundError
from recall_engine.tenants.ids import legacy_name, safe_name
from recall_engine.tenants.keystore import ADMIN, KeyRecord, KeyStore, key_digest, new_key_id

__all__ = ["ADMIN", "REGISTRY_FILE", "KeyRecord", "TenantRecord", "TenantRegistry", "key_digest"]

REGISTRY_FILE = "tenants.sqlite3"

logger = logging.getLogger("recall_engine.tenants")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, schema TEXT NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS api_keys (digest TEXT PRIMARY KEY, tenant_id TEXT NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sub_tenants (tenant_id TEXT NOT NULL, sub_tenant_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, sub_tenant_id));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
# Columns added to the SQLite file since its first schema: (table, column).
_ADDED = (("tenants", "store"), ("sub_tenants", "name"), ("api_keys", "key_id"),
          ("api_keys", "prefix"))  # fmt: skip


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True)
class TenantRecord:
    tenant_id: str
    metadata_schema: list[dict[str, object]]
    created_at: str
    store: str = ""
    """The engine name of the tenant's store."""

    @property
    def filterable(self) -> frozenset[str]:
        """Tenant metadata fields declared with ``enable_match``."""
        return frozenset(str(f["name"]) for f in self.metadata_schema if f.get("enable_match"))


class TenantRegistry(KeyStore):
    """Tenants and API keys; safe to share between threads."""

    def __init__(self, source: Path | SqlDatabase) -> None:
        """``source``: the data dir (its ``tenants.sqlite3``), or a state database."""
        self._db: SqlDatabase
        if isinstance(source, Path):
            source.mkdir(parents=True, exist_ok=True)
            self.path: Path | None = source / REGISTRY_FILE
            self._db = SqliteFile(self.path, _SCHEMA, wal=True)
        else:
            self.path, self._db = None, source
        self._lock = threading.RLock()
        with self._tx() as conn:
            if self._db.dialect == "sqlite":
                self._add_columns(conn)
            self._migrate(conn)
        self._tenants: dict[str, TenantRecord] = {}
        self._store_owner: dict[str, str] = {}
        self._keys: list[tuple[str, str]] = []
        self._version = -1
        self._reload()

    @staticmethod
    def _add_columns(conn: Connection) -> None:
        for table, column in _ADDED:
            names = {r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()}
            if column not in names:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")

    def _migrate(self, conn: Connection) -> None:
        """Fill what rows written by older versions lack (store and sub-tenant
        names, key ids)."""
        owners: dict[str, str] = {}
        rows = conn.execute("SELECT id, store FROM tenants ORDER BY created_at, id").fetchall()
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
            conn.execute("UPDATE tenants SET store = ? WHERE id = ?", (store, tenant_id))
        for tenant_id, sub in conn.execute(
            "SELECT tenant_id, sub_tenant_id FROM sub_tenants WHERE name IS NULL"
        ).fetchall():
            conn.execute(
                "UPDATE sub_tenants SET name = ? WHERE tenant_id = ? AND sub_tenant_id = ?",
                (legacy_name(sub), tenant_id, sub),
            )
        for (digest,) in conn.execute(
            "SELECT digest FROM api_keys WHERE key_id IS NULL"
        ).fetchall():
            conn.execute(
                "UPDATE api_keys SET key_id = ?, prefix = '' WHERE digest = ?",
                (new_key_id(), digest),
            )
        if conn.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone():
            self._mark_seeded(conn)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Connection]:
        """One transaction (the outermost of nested ones), holding the thread lock."""
        with self._lock, self._db.write() as conn:
            yield conn

    def _reload(self) -> None:
        with self._lock:
            # The version first: a change committed while the rows are read then
            # shows as a newer version, and the next lookup reloads again.
            version = self._db.data_version()
            with self._db.read() as conn:
                assert conn is not None  # written on open
                rows = conn.execute("SELECT id, schema, created_at, store FROM tenants").fetchall()
                keys = [tuple(r) for r in conn.execute("SELECT digest, tenant_id FROM api_keys")
                        .fetchall()]  # fmt: skip
            self._tenants = {r[0]: TenantRecord(r[0], json.loads(r[1]), r[2], r[3]) for r in rows}
            self._store_owner = {r.store: r.tenant_id for r in self._tenants.values()}
            self._keys = keys  # type: ignore[assignment]
            self._version = version

    def _fresh(self) -> None:
        """Reload when another connection (another process) committed a change."""
        with self._lock:
            if self._db.data_version() != self._version:
                self._reload()

    def close(self) -> None:
        """Close the file (a shared state database stays open: its owner closes it)."""
        with self._lock:
            if self.path is not None:
                self._db.close()

    # tenants

    def create(self, tenant_id: str, metadata_schema: list[dict[str, object]]) -> TenantRecord:
        """Register a tenant and the name of its store.

        Raises:
            InvalidInputError: a bad id.
            TenantAlreadyExistsError: the tenant exists, or its id names another tenant's store.
        """
        with self._lock:
            self._fresh()
            store = self.store_name(tenant_id)
            with self._tx() as conn:
                added = conn.execute(
                    "INSERT INTO tenants (id, schema, created_at, store) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (tenant_id, json.dumps(metadata_schema), _now(), store),
                ).rowcount
            self._reload()
            if not added:
                raise TenantAlreadyExistsError(
                    f"tenant {tenant_id!r} already exists; use it, or delete it first."
                )
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
            InvalidInputError: a bad id, or ``ADMIN`` (the key store's "every tenant").
            TenantAlreadyExistsError: the name is the store of another tenant.
        """
        record = self._tenants.get(tenant_id)
        if record is not None:
            return record.store
        if tenant_id == ADMIN:  # a tenant of that id would share its keys with the admins
            raise InvalidInputError(
                f"tenant_id {ADMIN!r} is reserved: API keys use it for every tenant; "
                "pick another tenant_id."
            )
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
        """Forget a tenant, its sub-tenants and its API keys; returns the revoked keys.

        A tenant of id ``ADMIN`` (made before that id was reserved) has no keys of
        its own: the admin keys stay.
        """
        with self._tx() as conn:
            revoked = [] if tenant_id == ADMIN else self.keys(tenant_id)
            conn.execute("DELETE FROM tenants WHERE id = ?", (tenant_id,))
            conn.execute("DELETE FROM sub_tenants WHERE tenant_id = ?", (tenant_id,))
            if tenant_id != ADMIN:
                conn.execute("DELETE FROM api_keys WHERE tenant_id = ?", (tenant_id,))
        self._reload()
        return revoked

    def sub_tenant_name(self, tenant_id: str, sub_tenant_id: str) -> str:
        """The engine name of a sub-tenant's datasets: its row's, else ``safe_name``.

        Raises:
            InvalidInputError: a bad id, or one whose name another sub-tenant's row holds.
        """
        with self._lock, self._db.read() as conn:
            assert conn is not None
            rows = conn.execute(
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
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO sub_tenants (tenant_id, sub_tenant_id, name) "
                "VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (tenant_id, sub_tenant_id, name),
            )

    def sub_tenants(self, tenant_id: str) -> list[str]:
        with self._lock, self._db.read() as conn:
            assert conn is not None
            rows = conn.execute(
                "SELECT sub_tenant_id FROM sub_tenants WHERE tenant_id = ? ORDER BY sub_tenant_id",
                (tenant_id,),
            ).fetchall()
        return [r[0] for r in rows]
