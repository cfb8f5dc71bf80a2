"""One SQLite file in the data dir, shared by the threads of one engine.

Users, grants and sessions are small, transactional and must survive a
restart, which is what the stdlib ``sqlite3`` is for. One connection per file
is guarded by a lock (every statement is short). The file is created on the
first write, never by a read. Files written rarely (users, grants) keep the
rollback journal, so that a read leaves the data dir byte for byte as it was;
files written on every answer (sessions) use WAL, where a commit costs about
one fsync instead of several.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recall_engine.core.errors import StoreError


def _reason(exc: BaseException) -> str:
    """Why an open failed, without the path (errors may reach an HTTP client)."""
    return getattr(exc, "strerror", None) or str(exc)


class SqliteFile:
    """A lazily opened SQLite database with a fixed schema."""

    def __init__(self, path: Path, schema: str, *, wal: bool = False) -> None:
        self.path = path
        self._schema = schema
        self._wal = wal
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._conn is not None:
            return self._conn
        if not create and not self.path.is_file():
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            if self._wal:
                conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(self._schema)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"Could not open {self.path.name}: {_reason(exc)}.") from exc
        self._conn = conn
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection | None]:
        """The connection, or None when the file does not exist yet."""
        with self._lock:
            try:
                yield self._open(create=False)
            except sqlite3.Error as exc:
                raise StoreError(f"Reading {self.path.name} failed: {exc}.") from exc

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one transaction (committed on success)."""
        with self._lock:
            conn = self._open(create=True)
            assert conn is not None
            try:
                with conn:
                    yield conn
            except sqlite3.Error as exc:
                raise StoreError(f"Writing {self.path.name} failed: {exc}.") from exc

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
