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
import hashlib
import hmac
import json
import logging
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall_engine.core.errors import InvalidInputError
from recall_engine.tenants.convert import legacy_name, safe_name
from recall_engine.tenants.errors import (
    ApiKeyNotFoundError,
    TenantAlreadyExistsError,
    TenantNotFoundError,
)

REGISTRY_FILE = "tenants.sqlite3"
ADMIN = "*"
"""The tenant of an admin key: it may act on every tenant."""
MIN_KEY_LENGTH = 16
KEY_PREFIX = "rek_"
"""Generated keys: this prefix and 43 URL-safe characters (256 random bits)."""
SHOWN_KEY_CHARS = 8
"""How many leading characters of a key a listing shows (the key store keeps no more)."""

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


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


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


@dataclass(frozen=True)
class KeyRecord:
    """What the key store shows of a key: never the key, never its digest."""

    key_id: str
    tenant_id: str  # ADMIN: every tenant
    prefix: str
    created_at: str

    @property
    def is_admin(self) -> bool:
        return self.tenant_id == ADMIN


class TenantRegistry:
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
                (_key_id(), digest),
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

    def _mark_seeded(self) -> None:
        self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('keys_seeded', ?)",
                         (_now(),))  # fmt: skip

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

    # keys

    def create_key(self, tenant_id: str, *, key: str | None = None) -> tuple[KeyRecord, str]:
        """A new key for ``tenant_id`` (``ADMIN``: every tenant); returns its record
        and the key itself, which is shown this once and stored as a digest only.

        Raises:
            InvalidInputError: a bad tenant id, a given key shorter than 16
                characters, or a key that is already in the store.
        """
        if tenant_id != ADMIN:
            safe_name(tenant_id, what="tenant_id")
        key = new_key() if key is None else key
        if not isinstance(key, str) or len(key) < MIN_KEY_LENGTH or key != key.strip():
            raise InvalidInputError(
                f"API keys must be at least {MIN_KEY_LENGTH} characters long, without "
                "surrounding spaces; leave the key out to get a random one."
            )
        record = KeyRecord(_key_id(), tenant_id, key[:SHOWN_KEY_CHARS] if
                           key.startswith(KEY_PREFIX) else key[:4], _now())  # fmt: skip
        with self._tx():
            try:
                self._db.execute(
                    "INSERT INTO api_keys (digest, tenant_id, created_at, key_id, prefix) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (key_digest(key), tenant_id, record.created_at, record.key_id, record.prefix),
                )
            except sqlite3.IntegrityError:
                raise InvalidInputError(
                    "That API key is already in the key store; use another key."
                ) from None
            self._mark_seeded()
        self._reload()
        return record, key

    def add_key(self, key: str, tenant_id: str) -> KeyRecord:
        """Accept ``key`` for ``tenant_id`` (``ADMIN``: every tenant); only its digest is kept."""
        return self.create_key(tenant_id, key=key)[0]

    def keys(self, tenant_id: str | None = None) -> list[KeyRecord]:
        """Every key (of ``tenant_id`` only, when given), oldest first."""
        query = "SELECT key_id, tenant_id, prefix, created_at FROM api_keys"
        args: tuple[str, ...] = ()
        if tenant_id is not None:
            query, args = query + " WHERE tenant_id = ?", (tenant_id,)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY created_at, key_id", args).fetchall()
        return [KeyRecord(r[0], r[1], r[2] or "", r[3]) for r in rows]

    def key(self, key_id: str) -> KeyRecord:
        """Raises: ApiKeyNotFoundError."""
        for record in self.keys():
            if record.key_id == key_id:
                return record
        raise ApiKeyNotFoundError(
            f"no API key with id {str(key_id)[:40]!r}; list them with `recall-engine keys list`."
        )

    def revoke_key(self, key_id: str) -> KeyRecord:
        """Delete a key: the next request that presents it gets 401.

        Raises: ApiKeyNotFoundError.
        """
        with self._tx():
            record = self.key(key_id)
            self._db.execute("DELETE FROM api_keys WHERE key_id = ?", (key_id,))
        self._reload()
        return record

    def rotate_key(self, key_id: str) -> tuple[KeyRecord, str]:
        """Replace a key by a new random one of the same tenant, in one transaction.

        Raises: ApiKeyNotFoundError.
        """
        with self._lock:
            old = self.key(key_id)
            key = new_key()
            record = KeyRecord(_key_id(), old.tenant_id, key[:SHOWN_KEY_CHARS], _now())
            with self._tx():
                self._db.execute("DELETE FROM api_keys WHERE key_id = ?", (key_id,))
                self._db.execute(
                    "INSERT INTO api_keys (digest, tenant_id, created_at, key_id, prefix) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (key_digest(key), old.tenant_id, record.created_at, record.key_id,
                     record.prefix),
                )  # fmt: skip
        self._reload()
        return record, key

    def seeded(self) -> bool:
        """Whether the key store was ever given a key (seeded, or by ``create_key``)."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM meta WHERE key = 'keys_seeded'").fetchone()
        return row is not None

    def seed(self, keys: Iterable[tuple[str, str]]) -> bool:
        """Put ``(tenant_id, key)`` pairs into a key store that never had a key;
        True when it did. On a store that had keys, a pair already in it (same
        tenant) is accepted as it is, so restarting with the same flags works.

        Raises:
            InvalidInputError: the store had keys and a pair is not in it (revoked,
                rotated or new; nothing is changed), or a bad key or tenant id.
        """
        pairs = list(keys)
        with self._lock:
            if not self.seeded():
                with self._tx():
                    for tenant_id, key in pairs:
                        self.create_key(tenant_id, key=key)
                return bool(pairs)
            self._fresh()
            stored = dict(self._keys)
        for tenant_id, key in pairs:
            if stored.get(key_digest(key)) != tenant_id:
                who = "the admin key" if tenant_id == ADMIN else f"the key for {tenant_id!r}"
                raise InvalidInputError(
                    f"{who} given by a flag or environment variable is not in the key store, "
                    "which already holds keys: flags and environment variables only seed an "
                    "empty key store. Change keys with `recall-engine keys create|rotate|revoke` "
                    "(or the admin endpoints) and drop the flag."
                )
        return False

    def has_keys(self) -> bool:
        self._fresh()
        return bool(self._keys)

    def key_tenant(self, key: str) -> str | None:
        """The tenant a key belongs to (``ADMIN`` for an admin key), None if unknown.

        Every stored digest is compared, each in constant time, so timing says
        nothing about which digest (or how much of one) matched.
        """
        self._fresh()
        presented = key_digest(key)
        found: str | None = None
        for digest, tenant_id in self._keys:
            if hmac.compare_digest(presented, digest):
                found = tenant_id
        return found


def _key_id() -> str:
    return "key_" + secrets.token_hex(6)
