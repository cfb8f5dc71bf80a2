"""The ingest ledger: which data items are being written, and which are in.

A writer records an item as ``pending`` (with its content hash and the writer's
holder id) before it writes the item's chunks, vectors and graph, and marks it
``committed`` once all of them are durable. A writer that dies in between
leaves its items pending: ``orphans`` finds them (pending under a holder that
does not hold the tenant's writer lease, so it can write nothing more), and the
next writer either rolls each one back (removes what of it reached the stores,
then ``roll_back``) or retries it (``take_over``, write it again, ``commit``).
Readers may treat a pending item as not there yet, so none is half visible.

Every change is one conditional statement whose ``rowcount`` says whether it
happened, so two writers racing on one item never both win.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from recall_engine.core.cells import Cell
from recall_engine.core.errors import InvalidInputError
from recall_engine.state.lease import WriterLeases
from recall_engine.state.sql import SqlDatabase

Status = Literal["pending", "committed"]
Claim = Literal["started", "done", "busy"]
"""What ``begin`` found: ``started`` (the caller now holds the item pending),
``done`` (committed with this content already: nothing to write), ``busy``
(pending under another holder)."""

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS ingest_ledger (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, data_id TEXT NOT NULL,
    content_hash TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('pending', 'committed')),
    holder TEXT NOT NULL, updated_at REAL NOT NULL,
    PRIMARY KEY (tenant_id, dataset_id, data_id));
"""
_COLUMNS = "tenant_id, dataset_id, data_id, content_hash, status, holder, updated_at"
_KEY = "tenant_id = ? AND dataset_id = ? AND data_id = ?"


@dataclass(frozen=True)
class LedgerEntry:
    tenant_id: str
    dataset_id: str
    data_id: str
    content_hash: str
    status: Status
    holder: str
    updated_at: float

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.tenant_id, self.dataset_id, self.data_id)


def _entry(row: Sequence[Cell]) -> LedgerEntry:
    tenant_id, dataset_id, data_id, content_hash, status, holder, updated_at = row
    return LedgerEntry(tenant_id, dataset_id, data_id, content_hash, status, holder, updated_at)


class IngestLedger:
    """Pending and committed data items of every tenant; safe to share between threads."""

    def __init__(self, db: SqlDatabase, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock

    def begin(
        self, tenant_id: str, dataset_id: str, data_id: str, *, content_hash: str, holder: str
    ) -> Claim:
        """Record the item as pending under ``holder`` with ``content_hash``, unless
        it is committed with that content (``done``) or pending under another holder
        (``busy``). A committed item with other content (a new version) starts again.

        Raises:
            InvalidInputError: an empty content hash or holder.
        """
        for name, value in (("content_hash", content_hash), ("holder", holder)):
            if not isinstance(value, str) or not value:
                raise InvalidInputError(f"The ledger needs a {name} (a non-empty string).")
        key = (tenant_id, dataset_id, data_id)
        with self._db.write() as conn:
            started = conn.execute(
                f"INSERT INTO ingest_ledger ({_COLUMNS}) VALUES (?, ?, ?, ?, 'pending', ?, ?) "
                "ON CONFLICT (tenant_id, dataset_id, data_id) DO UPDATE SET "
                "content_hash = excluded.content_hash, status = 'pending', "
                "holder = excluded.holder, updated_at = excluded.updated_at WHERE "
                "(ingest_ledger.status = 'committed' "
                "AND ingest_ledger.content_hash <> excluded.content_hash) "
                "OR (ingest_ledger.status = 'pending' AND ingest_ledger.holder = excluded.holder)",
                (*key, content_hash, holder, self._clock()),
            ).rowcount
            if started == 1:
                return "started"
            row = conn.execute(f"SELECT status FROM ingest_ledger WHERE {_KEY}", key).fetchone()
        return "done" if row is not None and row[0] == "committed" else "busy"

    def commit(self, tenant_id: str, dataset_id: str, data_id: str, *, holder: str) -> bool:
        """Mark the item committed; False when ``holder`` does not hold it pending
        (another writer took it over, or it was rolled back)."""
        with self._db.write() as conn:
            done = conn.execute(
                "UPDATE ingest_ledger SET status = 'committed', updated_at = ? "
                f"WHERE {_KEY} AND status = 'pending' AND holder = ?",
                (self._clock(), tenant_id, dataset_id, data_id, holder),
            ).rowcount
        return done == 1

    def entry(self, tenant_id: str, dataset_id: str, data_id: str) -> LedgerEntry | None:
        with self._db.read() as conn:
            if conn is None:
                return None
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM ingest_ledger WHERE {_KEY}",
                (tenant_id, dataset_id, data_id),
            ).fetchone()
        return None if row is None else _entry(row)

    def pending(self, tenant_id: str, *, holder: str | None = None) -> list[LedgerEntry]:
        """The tenant's pending items (of ``holder`` only, when given), oldest first."""
        sql = f"SELECT {_COLUMNS} FROM ingest_ledger WHERE tenant_id = ? AND status = 'pending'"
        params: tuple[str, ...] = (tenant_id,)
        if holder is not None:
            sql, params = sql + " AND holder = ?", (tenant_id, holder)
        with self._db.read() as conn:
            if conn is None:
                return []
            rows = conn.execute(sql + " ORDER BY updated_at, dataset_id, data_id", params)
            return [_entry(r) for r in rows.fetchall()]

    def orphans(self, tenant_id: str, leases: WriterLeases) -> list[LedgerEntry]:
        """Pending items whose holder does not hold the tenant's writer lease now:
        left by a writer that died (or lost its lease) before committing them."""
        live = leases.current(tenant_id)
        return [e for e in self.pending(tenant_id) if live is None or e.holder != live.holder]

    def take_over(self, entry: LedgerEntry, holder: str) -> bool:
        """Hold ``entry`` pending under ``holder`` (to write it again); False when it
        changed since it was read (committed, rolled back, or taken by another)."""
        with self._db.write() as conn:
            taken = conn.execute(
                f"UPDATE ingest_ledger SET holder = ?, updated_at = ? WHERE {_KEY} "
                "AND status = 'pending' AND holder = ? AND content_hash = ?",
                (holder, self._clock(), *entry.key, entry.holder, entry.content_hash),
            ).rowcount
        return taken == 1

    def roll_back(self, entry: LedgerEntry) -> bool:
        """Forget a pending ``entry``, once the caller removed what of it reached the
        stores (the next ``begin`` of the item starts it anew); False when it
        changed since it was read."""
        with self._db.write() as conn:
            gone = conn.execute(
                f"DELETE FROM ingest_ledger WHERE {_KEY} AND status = 'pending' AND holder = ?",
                (*entry.key, entry.holder),
            ).rowcount
        return gone == 1

    def forget(self, tenant_id: str, data_ids: Sequence[str], *, holder: str | None = None) -> int:
        """Forget items of any dataset of the tenant (their data ids are unique to
        one dataset): deleted from the stores, or (``holder``: only its pending
        rows) a write that failed and undid itself; returns how many rows went."""
        sql = "DELETE FROM ingest_ledger WHERE tenant_id = ? AND data_id = ?"
        if holder is not None:
            sql += " AND status = 'pending' AND holder = ?"
        with self._db.write() as conn:
            return sum(
                conn.execute(
                    sql, (tenant_id, d) if holder is None else (tenant_id, d, holder)
                ).rowcount
                for d in data_ids
            )

    def drop(self, tenant_id: str, dataset_id: str, data_ids: Sequence[str]) -> int:
        """Forget items that were deleted from the stores; returns how many rows went."""
        with self._db.write() as conn:
            return sum(
                conn.execute(
                    f"DELETE FROM ingest_ledger WHERE {_KEY}", (tenant_id, dataset_id, d)
                ).rowcount
                for d in data_ids
            )
