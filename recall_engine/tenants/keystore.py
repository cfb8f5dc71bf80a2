"""The API key store, part of the tenant registry (its SQLite file or Postgres tables).

Keys are stored as SHA-256 digests only (keys are random and long, so a fast
hash is enough), with a short key id, the first characters of the key (to
recognise it in a list), the tenant and the creation time. A presented key is
compared with every stored digest in constant time.

Seeding: ``seed`` fills a key store that never had a key (the ``keys_seeded``
mark in ``meta`` stays once any key was added, so revoking every key does not
reopen the store to seeding); on a store that had keys a pair it already holds
is accepted and any other is refused, so a flag can never bring back a revoked
or rotated key.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from recall_engine.core.errors import InvalidInputError
from recall_engine.state.sql import Connection, SqlDatabase
from recall_engine.tenants.errors import ApiKeyNotFoundError
from recall_engine.tenants.ids import safe_name

ADMIN = "*"
"""The tenant of an admin key: it may act on every tenant."""
MIN_KEY_LENGTH = 16
KEY_PREFIX = "rek_"
"""Generated keys: this prefix and 43 URL-safe characters (256 random bits)."""
SHOWN_KEY_CHARS = 8
"""How many leading characters of a generated key a listing shows (4 of a given one)."""


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def new_key_id() -> str:
    return "key_" + secrets.token_hex(6)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _shown(key: str) -> str:
    return key[:SHOWN_KEY_CHARS] if key.startswith(KEY_PREFIX) else key[:4]


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


class KeyStore:
    """The key methods of ``TenantRegistry`` (which owns the connection)."""

    _db: SqlDatabase
    _lock: threading.RLock
    _keys: list[tuple[str, str]]

    def _tx(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError

    def _reload(self) -> None:
        raise NotImplementedError

    def _fresh(self) -> None:
        raise NotImplementedError

    @staticmethod
    def _mark_seeded(conn: Connection) -> None:
        conn.execute("INSERT INTO meta (key, value) VALUES ('keys_seeded', ?) "
                     "ON CONFLICT DO NOTHING", (_now(),))  # fmt: skip

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
        record = KeyRecord(new_key_id(), tenant_id, _shown(key), _now())
        with self._tx() as conn:
            added = conn.execute(
                "INSERT INTO api_keys (digest, tenant_id, created_at, key_id, prefix) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (key_digest(key), tenant_id, record.created_at, record.key_id, record.prefix),
            ).rowcount
            if not added:
                raise InvalidInputError(
                    "That API key is already in the key store; use another key."
                )
            self._mark_seeded(conn)
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
        with self._lock, self._db.read() as conn:
            assert conn is not None
            rows = conn.execute(query + " ORDER BY created_at, key_id", args).fetchall()
        return [KeyRecord(r[0], r[1], r[2] or "", r[3]) for r in rows]

    def key(self, wanted: str) -> KeyRecord:
        """Raises: ApiKeyNotFoundError."""
        for record in self.keys():
            if record.key_id == wanted:
                return record
        raise ApiKeyNotFoundError(
            f"no API key with id {str(wanted)[:40]!r}; list them with `recall-engine keys list`."
        )

    def revoke_key(self, key_id: str) -> KeyRecord:
        """Delete a key: the next request that presents it gets 401.

        Raises: ApiKeyNotFoundError.
        """
        with self._tx() as conn:
            record = self.key(key_id)
            conn.execute("DELETE FROM api_keys WHERE key_id = ?", (key_id,))
        self._reload()
        return record

    def rotate_key(self, key_id: str) -> tuple[KeyRecord, str]:
        """Replace a key by a new random one of the same tenant, in one transaction.

        Raises: ApiKeyNotFoundError.
        """
        with self._lock:
            old = self.key(key_id)
            key = new_key()
            record = KeyRecord(new_key_id(), old.tenant_id, _shown(key), _now())
            with self._tx() as conn:
                conn.execute("DELETE FROM api_keys WHERE key_id = ?", (key_id,))
                conn.execute(
                    "INSERT INTO api_keys (digest, tenant_id, created_at, key_id, prefix) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (key_digest(key), old.tenant_id, record.created_at, record.key_id,
                     record.prefix),
                )  # fmt: skip
        self._reload()
        return record, key

    def seeded(self) -> bool:
        """Whether the key store was ever given a key (seeded, or by ``create_key``)."""
        with self._lock, self._db.read() as conn:
            assert conn is not None
            row = conn.execute("SELECT 1 FROM meta WHERE key = 'keys_seeded'").fetchone()
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
                    "empty key store. Drop the flag, and change keys with `recall-engine keys "
                    "rotate KEY_ID` (or `keys create` / `keys revoke`, or the admin endpoints)."
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
