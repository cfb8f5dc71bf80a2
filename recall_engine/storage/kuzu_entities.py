"""Entity and relation listings of the Kuzu adapter (``KuzuGraphStore``): candidates
by name key, every entity or relation of some datasets, the chunks mentioning each."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from recall_engine.core.cells import Row
from recall_engine.core.errors import StoreError
from recall_engine.core.graph import Entity, Relation
from recall_engine.storage import kuzu_entity_lists as lists
from recall_engine.storage import kuzu_graph_elements as ge

if TYPE_CHECKING:
    import kuzu


class KuzuEntityReads:
    """Entity and relation reads on the writer's connection (``KuzuGraphStore``'s)."""

    _conn: kuzu.Connection
    _lock: threading.RLock

    def execute(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        raise NotImplementedError  # pragma: no cover - KuzuGraphStore.execute

    def _execute_sliced(
        self, query: str, values: Sequence[str], *, key: str, **params: object
    ) -> list[Row]:
        raise NotImplementedError  # pragma: no cover - KuzuGraphStore._execute_sliced

    def entity_candidates(self, dataset_id: str, keys: Sequence[str]) -> list[Entity]:
        """Stored entities of a dataset whose name, alias or surname key is in ``keys``.

        One scan of the dataset's entities, matched against the keys as a hash
        set: ``key IN $keys`` in Cypher compared every stored key with every
        asked key (10,000 keys against 32,000 entities: ~50 s).
        """
        if not keys:
            return []
        with self._lock:
            try:
                result = self._conn.execute(
                    f"MATCH (e:Entity) WHERE e.dataset_id = $ds RETURN e.keys, {ge.ENTITY_RETURN}",
                    {"ds": dataset_id},
                )
                if isinstance(result, list):
                    result = result[-1]
                table = result.get_as_arrow().combine_chunks()
            except Exception as exc:
                raise StoreError(f"Kuzu query failed: {exc}") from exc
        if table.num_rows == 0:
            return []
        return [ge.entity_from_row(row) for row in _rows_with_keys(table, keys)]

    def entity_ids(self) -> set[str]:
        """The id of every stored entity."""
        return {r[0] for r in self.execute("MATCH (e:Entity) RETURN e.id")}

    def entities(self, dataset_ids: Sequence[str] | None = None) -> list[Entity]:
        """Every entity (of the given datasets), ordered by id."""
        # Two queries, not "$ds IS NULL OR ... IN $ds": a null list parameter crashes Kuzu 0.11.
        where = "" if dataset_ids is None else "WHERE e.dataset_id IN $ds "
        rows = self.execute(
            f"MATCH (e:Entity) {where}RETURN {ge.ENTITY_RETURN} ORDER BY e.id",
            {} if dataset_ids is None else {"ds": list(dataset_ids)},
        )
        return [ge.entity_from_row(r) for r in rows]

    def relations(self, dataset_ids: Sequence[str] | None = None) -> list[Relation]:
        """Every relation (of the given datasets), ordered by id."""
        where = "" if dataset_ids is None else "WHERE r.dataset_id IN $ds "
        rows = self.execute(
            f"MATCH (a:Entity)-[r:RELATES]->(b:Entity) {where}"
            f"RETURN {ge.RELATION_RETURN} ORDER BY r.id",
            {} if dataset_ids is None else {"ds": list(dataset_ids)},
        )
        return [ge.relation_from_row(r) for r in rows]

    def mention_chunks(self, entity_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """Entity id -> (chunk id, data id) of the chunks that mention it, in chunk order."""
        if not entity_ids:
            return {}
        rows = self._execute_sliced(
            "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.id IN $ids "
            "RETURN e.id, c.id, c.data_id ORDER BY c.data_id, c.chunk_index",
            entity_ids,
            key="ids",
        )
        out: dict[str, list[tuple[str, str]]] = {}
        for eid, cid, did in rows:
            out.setdefault(eid, []).append((cid, did))
        return out


def _rows_with_keys(table: pa.Table, keys: Sequence[str]) -> list[Row]:
    """The rows (without their first column, the encoded keys) that hold one of ``keys``."""
    split = pc.split_pattern(table.column(0).combine_chunks(), pattern=lists.KEY_SEP)
    flat = pc.list_flatten(split)
    wanted = pa.array(sorted(set(keys)), type=flat.type)
    hits = pc.filter(pc.list_parent_indices(split), pc.is_in(flat, value_set=wanted))
    picked = table.take(pc.unique(hits)).drop_columns([table.column_names[0]])
    return [list(row.values()) for row in picked.to_pylist()]
