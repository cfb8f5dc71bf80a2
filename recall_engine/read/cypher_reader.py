"""``CypherReader``: the caller's read-only Cypher and the schema it is written
against (``read.api.CypherReads``). The query text is the CYPHER search type's
own; it reaches the graph only through ``GraphStore.read_only_query``."""

from __future__ import annotations

import asyncio

from recall_engine.core.errors import InvalidInputError
from recall_engine.read.api import CypherResult
from recall_engine.read.scoped import ScopedReader
from recall_engine.storage.kuzu_readonly import MAX_ROWS


class CypherReader(ScopedReader):
    """Cypher over the whole tenant graph, allowed when the scope is the whole tenant
    and the reader's filter leaves nothing out (expiry aside: expired items are
    forgotten before they are read)."""

    def reads_whole_tenant(self) -> bool:
        """Whether this reader's scope is every dataset of the tenant and its filter
        leaves nothing out: where ``cypher`` may run."""
        where = self._where
        narrowed = where is not None and (where.narrows or where.stated_by is not None)
        return not narrowed and not set(self._names) - set(self._scope)

    def _check_whole_tenant(self) -> None:
        outside = set(self._names) - set(self._scope)
        if outside:
            raise InvalidInputError(
                "Cypher search reads the whole tenant graph, and this call may read "
                f"{len(self._scope)} of the tenant's {len(self._names)} datasets. Leave "
                "datasets= unset (or name every dataset you may read), or keep data that "
                "must stay apart in separate tenants."
            )
        where = self._where
        if where is not None and (where.narrows or where.stated_by is not None):
            raise InvalidInputError(
                "Cypher search reads the whole tenant graph, and cannot keep to this "
                "call's as_of or metadata_filters (it would read what they leave out). "
                "Leave them unset for a Cypher query, or pick another search type."
            )

    async def cypher(
        self,
        query: str,
        params: dict[str, object] | None = None,
        *,
        timeout_s: float = 5.0,
        max_rows: int = 1000,
    ) -> CypherResult:
        self._check_whole_tenant()
        max_rows = max(1, min(int(max_rows), MAX_ROWS))
        columns, rows = await asyncio.to_thread(
            self._store.graph.read_only_query, query, params, timeout_ms=int(timeout_s * 1000)
        )
        return CypherResult(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    async def graph_schema(self) -> str:
        tables = await asyncio.to_thread(self._store.graph.graph_schema)
        return "\n".join(table.describe() for table in tables)
