"""The per-tenant writer lease: exactly one holder writes a tenant's graph at a time.

A lease is a row (tenant, holder, expiry) of the state database. ``acquire``
takes it when nobody holds it, when its holder's time ran out, or when the
caller already holds it; the check and the write are one ``INSERT ... ON
CONFLICT DO UPDATE ... WHERE`` statement, which both Postgres (row lock on the
conflict) and SQLite (one writer per file) run atomically, so of any number of
racing replicas exactly one gets it. A holder renews before ``ttl_s`` runs out
and releases when done; a holder that died stops renewing, and its lease is
free once it expires.

Time is the database server's clock on Postgres (replicas on machines whose
clocks disagree still agree on expiry) and this machine's on SQLite (one
machine); tests pass a ``clock``.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass

from recall_engine.core.errors import InvalidInputError
from recall_engine.state.sql import Connection, SqlDatabase

DEFAULT_TTL_S = 30.0

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS writer_leases (
    tenant_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at REAL NOT NULL);
"""


def new_holder() -> str:
    """A holder id naming this process (host and pid, to tell whose a lease is)
    and a random part, so that a restarted process with a reused pid is another holder."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Lease:
    tenant_id: str
    holder: str
    expires_at: float
    """Seconds since the epoch, on the database's clock."""


class WriterLeases:
    """Per-tenant writer leases in a state database; safe to share between threads."""

    def __init__(
        self,
        db: SqlDatabase,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``clock``: seconds since the epoch; None = the database's clock.

        Raises:
            InvalidInputError: ``ttl_s`` is not a positive number.
        """
        self._db = db
        self.ttl_s = _ttl(ttl_s)
        self._clock = clock

    def _now(self, conn: Connection) -> float:
        if self._clock is not None:
            return float(self._clock())
        if self._db.dialect == "postgres":
            row = conn.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())::float8").fetchone()
            return float(row[0])
        return float(conn.execute("SELECT (julianday('now') - 2440587.5) * 86400.0").fetchone()[0])

    def acquire(self, tenant_id: str, holder: str, *, ttl_s: float | None = None) -> Lease | None:
        """The tenant's lease for ``holder`` (renewed when it holds it already),
        or None while another holder's lease is live."""
        ttl = self.ttl_s if ttl_s is None else _ttl(ttl_s)
        with self._db.write() as conn:
            now = self._now(conn)
            taken = conn.execute(
                "INSERT INTO writer_leases (tenant_id, holder, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT (tenant_id) DO UPDATE SET holder = excluded.holder, "
                "expires_at = excluded.expires_at "
                "WHERE writer_leases.expires_at <= ? OR writer_leases.holder = excluded.holder",
                (tenant_id, holder, now + ttl, now),
            ).rowcount
        return Lease(tenant_id, holder, now + ttl) if taken == 1 else None

    def renew(self, lease: Lease, *, ttl_s: float | None = None) -> Lease | None:
        """``lease`` with a new expiry, or None when its holder lost it (another
        holder took it after it expired, or it was released)."""
        ttl = self.ttl_s if ttl_s is None else _ttl(ttl_s)
        with self._db.write() as conn:
            now = self._now(conn)
            # An expired lease nobody took is still the holder's: nobody wrote meanwhile.
            kept = conn.execute(
                "UPDATE writer_leases SET expires_at = ? WHERE tenant_id = ? AND holder = ?",
                (now + ttl, lease.tenant_id, lease.holder),
            ).rowcount
        return Lease(lease.tenant_id, lease.holder, now + ttl) if kept == 1 else None

    def release(self, lease: Lease) -> bool:
        """Give the lease up (another holder may take it at once); False when its
        holder no longer held it."""
        with self._db.write() as conn:
            gone = conn.execute(
                "DELETE FROM writer_leases WHERE tenant_id = ? AND holder = ?",
                (lease.tenant_id, lease.holder),
            ).rowcount
        return gone == 1

    def current(self, tenant_id: str) -> Lease | None:
        """The tenant's live lease, or None when nobody holds one (or it expired)."""
        with self._db.read() as conn:
            if conn is None:
                return None
            now = self._now(conn)
            row = conn.execute(
                "SELECT holder, expires_at FROM writer_leases WHERE tenant_id = ? "
                "AND expires_at > ?",
                (tenant_id, now),
            ).fetchone()
        return None if row is None else Lease(tenant_id, row[0], float(row[1]))


def _ttl(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < INF:
        raise InvalidInputError(
            f"A lease's ttl_s must be a positive, finite number of seconds, got {value!r}."
        )
    return float(value)


INF = float("inf")
