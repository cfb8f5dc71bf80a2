"""A read-only Kuzu handle for caller-written Cypher.

Kuzu lets one process open a database ``read_only=True`` beside its writer;
that handle refuses every write itself (CREATE, MERGE, SET, DELETE, DROP, COPY,
LOAD, INSTALL, ATTACH, ...), so the guard does not depend on a keyword list.
It reads the snapshot taken when it was opened, so it is reopened whenever the
writer has committed since (the store's commit generation changed). A query
timeout bounds every run, and a modest buffer pool bounds its memory.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from recall_engine.core.errors import InvalidInputError, StoreError

_BUFFER_POOL = 256 * 1024 * 1024
_WRITE_REFUSED = "read-only"


class ReadOnlyHandle:
    """Opened lazily, reopened after writes, one query at a time."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._db: Any = None
        self._conn: Any = None
        self._generation = -1

    def _open(self, generation: int) -> Any:
        if self._conn is not None and self._generation == generation:
            return self._conn
        import kuzu

        self._close()
        try:
            self._db = kuzu.Database(str(self._path), read_only=True, buffer_pool_size=_BUFFER_POOL)
            self._conn = kuzu.Connection(self._db, num_threads=1)
        except Exception as exc:
            raise StoreError(f"Could not open the graph read-only: {exc}") from exc
        self._generation = generation
        return self._conn

    def run(
        self, query: str, params: dict[str, Any], timeout_ms: int, generation: int
    ) -> tuple[list[str], list[list[Any]]]:
        with self._lock:
            conn = self._open(generation)
            conn.set_query_timeout(max(1, int(timeout_ms)))
            try:
                result = conn.execute(query, params)
                if isinstance(result, list):
                    result = result[-1]
                columns = list(result.get_column_names())
                rows = [list(r) for r in result.get_all()]
            except Exception as exc:
                message = str(exc)
                if _WRITE_REFUSED in message.lower() and "write" in message.lower():
                    raise InvalidInputError(
                        "Cypher search is read-only: this query tries to change the graph. "
                        "Use remember()/forget() to change what is stored."
                    ) from exc
                if "interrupt" in message.lower() or "timeout" in message.lower():
                    raise StoreError(
                        f"The Cypher query ran past its {timeout_ms} ms limit; narrow it "
                        "(add LIMIT or a WHERE clause)."
                    ) from exc
                raise StoreError(f"The Cypher query failed: {message}") from exc
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
