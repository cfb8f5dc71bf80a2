"""One SQLite file in the data dir, shared by the threads of one engine: the
embedded driver of the state seam (``recall_engine.state.sql.SqlDatabase``).

Users, grants and sessions are small, transactional and must survive a
restart, which is what the stdlib ``sqlite3`` is for. One connection per file
is guarded by a lock (every statement is short). The file is created on the
first write, never by a read. Files written rarely (users, grants) keep the
rollback journal, so that a read leaves the data dir byte for byte as it was;
files written on every answer (sessions) use WAL, where a commit costs about
one fsync instead of several. Writes take the write lock at their start
(``BEGIN IMMEDIATE``), so two processes on one file wait for each other
instead of failing to upgrade a read lock.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from recall_engine.core.errors import StoreError
from recall_engine.state.sql import Dialect


def _reason(exc: BaseException) -> str:
    """Why an open failed, without the path (errors may reach an HTTP client)."""
    return getattr(exc, "strerror", None) or str(exc)


OPEN_TIMEOUT_S = 30.0


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch the file to WAL. SQLite answers "database is locked" at once, without
    waiting out the busy timeout, when several connections switch a new file at
    the same moment (replicas or tests starting together): retry for as long as
    the timeout the connection waits on anything else."""
    deadline = time.monotonic() + OPEN_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


class SqliteFile:
    """A lazily opened SQLite database with a fixed schema."""

    dialect: Dialect = "sqlite"

    def __init__(self, path: Path, schema: str, *, wal: bool = False) -> None:
        self.path = path
        self._schema = schema
        self._wal = wal
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._depth = 0

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self._conn is not None:
            return self._conn
        if not create and not self.path.is_file():
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=OPEN_TIMEOUT_S, check_same_thread=False, isolation_level=None
            )
            if self._wal:
                _use_wal(conn)
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
        """The connection inside one transaction (committed on success); a nested
        call joins the outer one."""
        with self._lock:
            conn = self._open(create=True)
            assert conn is not None
            if self._depth:
                self._depth += 1
                try:
                    yield conn
                finally:
                    self._depth -= 1
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
                self._depth = 1
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StoreError(f"Writing {self.path.name} failed: {exc}.") from exc
            finally:
                self._depth = 0

    def data_version(self) -> int:
        """SQLite's count of commits by other connections (0 before the file exists)."""
        with self.read() as conn:
            return 0 if conn is None else int(conn.execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
