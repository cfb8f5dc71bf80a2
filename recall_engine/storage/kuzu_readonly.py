"""A read-only Kuzu handle for caller-written Cypher.

Kuzu lets one process open a database ``read_only=True`` beside its writer;
that handle refuses every write itself (CREATE, MERGE, SET, DELETE, DROP,
ALTER, ...), so the guard does not depend on a keyword list. It reads the
snapshot taken when it was opened, so it is reopened whenever the writer has
committed since (the store's commit generation changed).

``cypher_guard.check_read_query`` runs first: it refuses what a read-only
database still allows (files, extensions, attached databases, settings,
transactions) and the functions that build values outside Kuzu's buffer pool.
Every run is bounded: a query timeout, a 256 MiB buffer pool (hash tables,
aggregates, strings and results live in it; a query that needs more fails),
one thread, and at most ``MAX_ROWS + 1`` rows copied out (the extra row tells
the caller that rows were left out).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from recall_engine.core.errors import InvalidInputError, QueryTimeoutError, StoreError
from recall_engine.storage.cypher_guard import check_read_query

if TYPE_CHECKING:
    import kuzu

BUFFER_POOL_BYTES = 256 * 1024 * 1024
MAX_TIMEOUT_MS = 60_000
MAX_ROWS = 10_000
_INVALID = ("parser exception", "binder exception", "catalog exception")


class ReadOnlyHandle:
    """Opened lazily, reopened after writes, one query at a time."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._db: kuzu.Database | None = None
        self._conn: kuzu.Connection | None = None
        self._generation = -1

    def _open(self, generation: int) -> kuzu.Connection:
        if self._conn is not None and self._generation == generation:
            return self._conn
        import kuzu

        self._close()
        try:
            self._db = kuzu.Database(
                str(self._path),
                read_only=True,
                buffer_pool_size=BUFFER_POOL_BYTES,
                max_num_threads=1,
            )
            self._conn = kuzu.Connection(self._db, num_threads=1)
        except Exception as exc:
            raise StoreError(f"Could not open the graph read-only: {exc}") from exc
        self._generation = generation
        return self._conn

    def run(
        self,
        query: str,
        params: dict[str, object],
        timeout_ms: int,
        generation: int,
    ) -> tuple[list[str], list[list[object]]]:
        """Run one read-only query; return column names and at most ``MAX_ROWS + 1`` rows.

        Raises:
            InvalidInputError: the query writes, reaches outside the graph, is not
                valid Cypher, or needs more memory than the buffer pool.
            QueryTimeoutError: it ran past ``timeout_ms``.
            StoreError: Kuzu failed otherwise.
        """
        check_read_query(query)
        timeout_ms = min(MAX_TIMEOUT_MS, max(1, int(timeout_ms)))
        with self._lock:
            conn = self._open(generation)
            conn.set_query_timeout(timeout_ms)
            try:
                result = conn.execute(query, params)
                if isinstance(result, list):  # never more than one statement (guarded)
                    result = result[-1]
                columns = list(result.get_column_names())
                rows: list[list[object]] = []
                while len(rows) <= MAX_ROWS and result.has_next():
                    rows.append(list(result.get_next()))
                result.close()
            except Exception as exc:
                raise _query_error(str(exc), timeout_ms) from exc
            return columns, rows

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._db is not None:
            self._db.close()
        self._db = self._conn = None

    def close(self) -> None:
        with self._lock:
            self._close()


def _query_error(message: str, timeout_ms: int) -> Exception:
    lower = message.lower()
    if "read-only" in lower and "write" in lower:
        return InvalidInputError(
            "Cypher search is read-only: this query tries to change the graph. "
            "Use remember()/forget() to change what is stored."
        )
    if lower.startswith(_INVALID) or any(f"{kind}:" in lower for kind in _INVALID):
        return InvalidInputError(f"The query is not valid Cypher: {message}")
    if "interrupt" in lower or "timeout" in lower:
        return QueryTimeoutError(
            f"The Cypher query ran past its {timeout_ms} ms limit; narrow it "
            "(add LIMIT or a WHERE clause)."
        )
    if "buffer pool is full" in lower or "unable to allocate" in lower:
        return InvalidInputError(
            f"The Cypher query needs more than the {BUFFER_POOL_BYTES >> 20} MiB it may use; "
            "narrow it (add LIMIT, a WHERE clause, or aggregate less)."
        )
    return StoreError(f"The Cypher query failed: {message}")
