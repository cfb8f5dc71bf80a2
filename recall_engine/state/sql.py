"""The seam every kind of state is written against: a small SQL database.

Users, grants, tenants, key digests, sessions, feedback, the ingest ledger and
the writer leases are each one class of plain SQL on this seam; two drivers
implement it: ``SqliteFile`` (one file in the data dir, the embedded default)
and ``PostgresDatabase`` (one schema of a Postgres server, shared by replicas).

The SQL the classes send is the subset both dialects accept: ``?`` placeholders
(the Postgres driver turns them into ``%s``), ``INSERT ... ON CONFLICT (...) DO
NOTHING / DO UPDATE``, and ``rowcount`` to learn whether a conditional write
happened (never an integrity error, which would abort a Postgres transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

from recall_engine.core.cells import Cell

Dialect = Literal["sqlite", "postgres"]


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Cell]: ...


class Connection(Protocol):
    def execute(self, sql: str, params: Sequence[Cell] = ..., /) -> Cursor: ...


class SqlDatabase(Protocol):
    """Where one or more kinds of state keep their tables."""

    dialect: Dialect

    def read(self) -> AbstractContextManager[Connection | None]:
        """A connection for reads (None when nothing was ever written: SQLite only).
        Inside ``write()`` on the same thread it is the writing connection."""
        ...

    def write(self) -> AbstractContextManager[Connection]:
        """A connection inside one transaction, committed when the block ends
        (rolled back on an error). Nested calls join the outer transaction."""
        ...

    def data_version(self) -> int:
        """A number that changes when another connection commits a change to the
        tenant registry's tables (callers reload their caches when it does)."""
        ...

    def close(self) -> None: ...
