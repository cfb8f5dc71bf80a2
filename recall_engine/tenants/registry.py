"""The tenant registry: which tenants exist, their metadata schema, API keys.

One SQLite file in the data dir (``tenants.sqlite3``); every change is one
transaction, so the file is never half-written. API keys are stored as SHA-256
digests only (keys are random and long, so a fast hash is enough) and a
presented key is compared with every stored digest in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall_engine.tenants.errors import TenantAlreadyExistsError, TenantNotFoundError

REGISTRY_FILE = "tenants.sqlite3"
ADMIN = "*"
"""The tenant of an admin key: it may act on every tenant."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, schema TEXT NOT NULL, "
    "created_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS api_keys (digest TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, "
    "created_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sub_tenants (tenant_id TEXT NOT NULL, sub_tenant_id TEXT NOT NULL, "
    "PRIMARY KEY (tenant_id, sub_tenant_id))",
)


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TenantRecord:
    tenant_id: str
    metadata_schema: list[dict[str, Any]]
    created_at: str

    @property
    def filterable(self) -> frozenset[str]:
        """Tenant metadata fields declared with ``enable_match``."""
        return frozenset(f["name"] for f in self.metadata_schema if f.get("enable_match"))


class TenantRegistry:
    """Tenants and API keys of one data dir; safe to share between threads."""

    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / REGISTRY_FILE
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._tenants: dict[str, TenantRecord] = {}
        self._keys: list[tuple[str, str]] = []
        self._reload()

    def _reload(self) -> None:
        rows = self._db.execute("SELECT id, schema, created_at FROM tenants").fetchall()
        self._tenants = {r[0]: TenantRecord(r[0], json.loads(r[1]), r[2]) for r in rows}
        self._keys = list(self._db.execute("SELECT digest, tenant_id FROM api_keys").fetchall())

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # tenants

    def create(self, tenant_id: str, metadata_schema: list[dict[str, Any]]) -> TenantRecord:
        """Raises: TenantAlreadyExistsError."""
        now = datetime.now(UTC).isoformat()
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO tenants (id, schema, created_at) VALUES (?, ?, ?)",
                    (tenant_id, json.dumps(metadata_schema), now),
                )
            except sqlite3.IntegrityError:
                raise TenantAlreadyExistsError(
                    f"tenant {tenant_id!r} already exists; use it, or delete it first."
                ) from None
            self._reload()
            return self._tenants[tenant_id]

    def get(self, tenant_id: str) -> TenantRecord:
        """Raises: TenantNotFoundError."""
        record = self._tenants.get(tenant_id)
        if record is None:
            raise TenantNotFoundError(
                f"tenant {tenant_id!r} does not exist; create it with create_tenant() "
                "(POST /tenants/create) first."
            )
        return record

    def exists(self, tenant_id: str) -> bool:
        return tenant_id in self._tenants

    def tenants(self) -> list[str]:
        return sorted(self._tenants)

    def delete(self, tenant_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM tenants WHERE id = ?", (tenant_id,))
            self._db.execute("DELETE FROM sub_tenants WHERE tenant_id = ?", (tenant_id,))
            self._reload()

    def add_sub_tenant(self, tenant_id: str, sub_tenant_id: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO sub_tenants (tenant_id, sub_tenant_id) VALUES (?, ?)",
                (tenant_id, sub_tenant_id),
            )

    def sub_tenants(self, tenant_id: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT sub_tenant_id FROM sub_tenants WHERE tenant_id = ? ORDER BY sub_tenant_id",
                (tenant_id,),
            ).fetchall()
        return [r[0] for r in rows]

    # keys

    def add_key(self, key: str, tenant_id: str) -> None:
        """Accept ``key`` for ``tenant_id`` (``ADMIN``: every tenant); only its digest is kept."""
        if len(key) < 16:
            raise ValueError("API keys must be at least 16 characters long.")
        now = datetime.now(UTC).isoformat()
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO api_keys (digest, tenant_id, created_at) VALUES (?, ?, ?)",
                (key_digest(key), tenant_id, now),
            )
            self._reload()

    def has_keys(self) -> bool:
        return bool(self._keys)

    def key_tenant(self, key: str) -> str | None:
        """The tenant a key belongs to (``ADMIN`` for an admin key), None if unknown.

        Every stored digest is compared, each in constant time, so timing says
        nothing about which digest (or how much of one) matched.
        """
        presented = key_digest(key)
        found: str | None = None
        for digest, tenant_id in self._keys:
            if hmac.compare_digest(presented, digest):
                found = tenant_id
        return found
