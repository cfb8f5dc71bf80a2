"""Agent traces: one entry per call of a traced function, kept with the session.

Stored in one SQLite file in the data dir beside the session caches, keyed by
tenant, user and session id like them, and expiring with the same time to live:
a session's traces go ``ttl_s`` seconds after its last trace was written. A
session keeps at most ``MAX_PER_SESSION`` entries (the oldest go first), so a
search over one session reads a bounded number of rows. Arguments, return
values and errors arrive here already redacted and capped (``redact``). A call
traced with ``summarize=True`` gets its LLM summary written later, beside it
(``set_summary``; ``summaries``); a file from before summaries gains the column
on first use.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from recall_engine.core.cells import Cell
from recall_engine.core.models import ResponseTraceEntry
from recall_engine.state.sqlite import SqliteFile

FILE_NAME = "traces.sqlite3"
MAX_PER_SESSION = 2000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    trace_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL,
    session_id TEXT NOT NULL, time REAL NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,
    arguments TEXT NOT NULL, result TEXT, error TEXT, duration_ms REAL NOT NULL, summary TEXT);
CREATE INDEX IF NOT EXISTS traces_session ON traces (tenant_id, user_id, session_id, time);
"""
_COLUMNS = (
    "trace_id, session_id, time, name, status, arguments, result, error, duration_ms, summary"
)
_PREVIEW = 300


@dataclass(frozen=True)
class TraceRecord:
    """One traced call, as stored (JSON text for arguments and result)."""

    trace_id: str
    session_id: str
    time: float
    name: str
    status: Literal["ok", "error"]
    arguments: str
    result: str | None
    error: str | None
    duration_ms: float
    summary: str | None = None
    """The LLM's one line on the call, once written (``summarize=True``)."""

    def text(self) -> str:
        """The call in one line: what the search reads and the LLM is shown."""
        call = f"{self.name}({_preview(self.arguments)})"
        if self.status == "error":
            return f"{call} failed after {self.duration_ms:.1f} ms with {self.error}"
        return f"{call} succeeded in {self.duration_ms:.1f} ms and returned {_preview(self.result)}"

    def searched_text(self) -> str:
        """What a search matches: the call's line and, once written, its summary."""
        return self.text() if self.summary is None else f"{self.text()}\n{self.summary}"

    def entry(self, score: float | None = None) -> ResponseTraceEntry:
        return ResponseTraceEntry(
            time=datetime.fromtimestamp(self.time, UTC),
            trace_id=self.trace_id,
            session_id=self.session_id,
            name=self.name,
            status=self.status,
            text=self.text(),
            arguments=json.loads(self.arguments),
            result=json.loads(self.result) if self.result is not None else None,
            error=self.error,
            duration_ms=self.duration_ms,
            summary=self.summary,
            score=score,
        )


def _preview(text: str | None) -> str:
    text = "null" if text is None else text
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."


class TraceStore:
    """Trace entries of every tenant in a data dir. Blocking: call it off the event
    loop. ``clock`` returns seconds since the epoch (tests move it)."""

    def __init__(
        self, data_dir: Path, *, ttl_s: float, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = SqliteFile(data_dir / FILE_NAME, _SCHEMA, wal=True)
        self.ttl_s = ttl_s
        self.clock = clock
        self._summary_column = False

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """Give a file written before summaries existed its ``summary`` column."""
        if self._summary_column:
            return
        columns = {row[1] for row in conn.execute("PRAGMA table_info(traces)")}
        if "summary" not in columns:
            conn.execute("ALTER TABLE traces ADD COLUMN summary TEXT")
        self._summary_column = True

    def close(self) -> None:
        self._db.close()

    def append(
        self,
        tenant_id: str,
        user_id: str,
        session_id: str,
        *,
        name: str,
        status: Literal["ok", "error"],
        arguments: str,
        result: str | None,
        error: str | None,
        duration_ms: float,
        at: float | None = None,
    ) -> TraceRecord:
        """Record one call (``arguments``/``result`` are JSON text)."""
        now = self.clock()
        record = TraceRecord(
            str(uuid.uuid4()),
            session_id,
            now if at is None else at,
            name,
            status,
            arguments,
            result,
            error,
            round(duration_ms, 3),
        )
        key = (tenant_id, user_id, session_id)
        with self._db.write() as conn:
            self._upgrade(conn)
            conn.execute(
                "DELETE FROM traces WHERE (tenant_id, user_id, session_id) IN (SELECT tenant_id, "
                "user_id, session_id FROM traces GROUP BY tenant_id, user_id, session_id "
                "HAVING max(time) < ?)",
                (now - self.ttl_s,),
            )
            conn.execute(
                f"INSERT INTO traces ({_COLUMNS}, tenant_id, user_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*_row(record), tenant_id, user_id),
            )
            conn.execute(
                "DELETE FROM traces WHERE tenant_id = ? AND user_id = ? AND session_id = ? AND "
                "trace_id NOT IN (SELECT trace_id FROM traces WHERE tenant_id = ? AND user_id = ? "
                "AND session_id = ? ORDER BY time DESC, rowid DESC LIMIT ?)",
                (*key, *key, MAX_PER_SESSION),
            )
        return record

    def set_summary(self, tenant_id: str, user_id: str, trace_id: str, summary: str) -> bool:
        """Write a call's summary; False when the trace is gone (expired, cut)."""
        with self._db.write() as conn:
            self._upgrade(conn)
            cursor = conn.execute(
                "UPDATE traces SET summary = ? "
                "WHERE trace_id = ? AND tenant_id = ? AND user_id = ?",
                (summary, trace_id, tenant_id, user_id),
            )
        return cursor.rowcount > 0

    def drop_tenant(self, tenant_id: str) -> int:
        """Delete every trace of a tenant (it is being deleted); SQLite overwrites
        the deleted rows' bytes and the WAL is emptied after the commit.

        Returns:
            The number of traces deleted.

        Raises:
            StoreError: the file could not be written (nothing is deleted).
        """
        with self._db.write() as conn:
            conn.execute("PRAGMA secure_delete = ON")
            gone = conn.execute("DELETE FROM traces WHERE tenant_id = ?", (tenant_id,)).rowcount
        with self._db.read() as conn:
            if conn is not None:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(gone)

    def entries(self, tenant_id: str, user_id: str, session_id: str) -> list[TraceRecord]:
        """The session's live traces, oldest first ([] when expired or unknown)."""
        with self._db.read() as conn:
            if conn is None:
                return []
            self._upgrade(conn)
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM traces WHERE tenant_id = ? AND user_id = ? "
                "AND session_id = ? ORDER BY time, rowid",
                (tenant_id, user_id, session_id),
            ).fetchall()
        if not rows or max(r[2] for r in rows) < self.clock() - self.ttl_s:
            return []
        return [_record(r) for r in rows]


def _row(record: TraceRecord) -> tuple[object, ...]:
    return (
        record.trace_id,
        record.session_id,
        record.time,
        record.name,
        record.status,
        record.arguments,
        record.result,
        record.error,
        record.duration_ms,
        record.summary,
    )


def _record(row: Sequence[Cell]) -> TraceRecord:
    trace_id, session_id, at, name, status, arguments, result, error, duration, summary = row
    return TraceRecord(
        trace_id, session_id, at, name, status, arguments, result, error, duration, summary
    )
