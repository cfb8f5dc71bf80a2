"""Kuzu adapter: datasets, data items, chunks, the knowledge graph, and their edges.

The only module that imports ``kuzu``. Every query is parameterised; user text
never reaches a query string. An ingest is written in one transaction, which is
also the commit point of the whole ingest: a data item is visible once its
Document node exists (see ``TenantStore``). Inside it, new rows go in with
``COPY`` (``kuzu_bulk``) and other row lists as parameterised queries, both in
slices (``kuzu_graph_elements.execute_rows``) so no single call holds the GIL for long.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall_engine.core.cells import Row
from recall_engine.core.errors import StoreError
from recall_engine.storage import kuzu_bulk as bulk
from recall_engine.storage import kuzu_graph_elements as ge
from recall_engine.storage import kuzu_rel_guard as guard
from recall_engine.storage import kuzu_validity as validity
from recall_engine.storage.document_pages import DocumentPageReads
from recall_engine.storage.entity_key_map import KEY_MAP_COLUMNS, KeyMap
from recall_engine.storage.graph_reads import DOCUMENT_COLUMNS, DocumentRecord, document_from_row
from recall_engine.storage.graph_records import GraphRemoval, GraphWrite
from recall_engine.storage.kuzu_entities import KuzuEntityReads
from recall_engine.storage.kuzu_fact_times import Stamp
from recall_engine.storage.kuzu_migrate import migrate, migration_error
from recall_engine.storage.kuzu_readonly import ReadOnlyHandle
from recall_engine.storage.kuzu_reads import KuzuReads
from recall_engine.storage.kuzu_wal import set_aside_unfinished_write
from recall_engine.storage.records import ChunkRecord, DataItemRecord
from recall_engine.storage.store_lock import open_error

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from kuzu import PreparedStatement

PREPARED_CAP = 256
"""Distinct read queries whose plans the read connection keeps (the adapter's own
queries are a few dozen fixed strings; past the cap the cache starts again)."""


class KuzuGraphStore(KuzuEntityReads, KuzuReads, DocumentPageReads):
    """A tenant's graph in an embedded Kuzu database.

    ``execute`` (writer connection) and ``read`` (read connection) take Kuzu Cypher
    and are this adapter's own: they are not part of ``GraphStore``, whose typed
    reads (``kuzu_reads``) are what the read API uses.
    """

    def __init__(self, path: Path, *, stamp: Stamp | None = None) -> None:
        """Open (or create) the graph at ``path`` and bring a store written by an
        earlier version to this layout, in place (``migrate``).

        Args:
            path: the Kuzu database file.
            stamp: graph extraction's ``supersession.stamp``; given, the facts and
                events stored before facts had time get theirs (``kuzu_fact_times``).

        Raises:
            StoreLockedError: another program holds the graph.
            StoreError: the graph could not be opened, or brought to this layout.
        """
        import kuzu

        self._path = path
        set_aside_unfinished_write(path)
        try:
            self._db = kuzu.Database(str(path))
            self._conn = kuzu.Connection(self._db)
        except Exception as exc:
            raise open_error(path, exc) from exc
        try:
            migrate(self._conn, stamp)
            # Reads get their own connection: they see the last commit and never
            # wait for an ingest's open transaction on the writer's connection.
            self._read_conn = kuzu.Connection(self._db)
        except Exception as exc:
            self._conn.close()
            self._db.close()
            raise migration_error(path, exc) from exc
        self._lock = threading.RLock()  # one query per connection at a time: not shared safely
        self._read_lock = threading.Lock()
        # Each read query's plan on the read connection (``read``), under _read_lock.
        self._prepared: dict[str, PreparedStatement] = {}
        self._guard = ReadOnlyHandle(path)
        self._generation = 0  # bumped by every commit; the read-only handle follows it

    @property
    def generation(self) -> int:
        """How many commits this process has made: a cache keyed on it is current."""
        return self._generation

    def close(self) -> None:
        self._guard.close()
        with self._lock, self._read_lock:
            self._prepared.clear()
            self._read_conn.close()
            self._conn.close()
            self._db.close()

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        """Run one of the store's own parameterised read queries on the read connection.

        Each query's plan is kept (``kuzu.PreparedStatement``): planning cost ~1.3 ms of
        the ~3 ms of a small read, and the queries are a few fixed strings. A kept plan
        that fails is dropped and the query planned again once."""
        with self._read_lock:
            try:
                try:
                    result = self._read_conn.execute(self._plan(query), params or {})
                except Exception:
                    if self._prepared.pop(query, None) is None:
                        raise
                    result = self._read_conn.execute(query, params or {})
            except Exception as exc:
                raise StoreError(f"Kuzu query failed: {exc}") from exc
            rows = result.get_all() if not isinstance(result, list) else result[-1].get_all()
            return [list(r) for r in rows]

    def _plan(self, query: str) -> str | PreparedStatement:
        """The kept plan of ``query`` on the read connection (made on first use); the
        query itself when Kuzu cannot plan it ahead (its error is the execution's)."""
        plan = self._prepared.get(query)
        if plan is None:
            import kuzu

            if len(self._prepared) >= PREPARED_CAP:
                self._prepared.clear()
            statement = kuzu.PreparedStatement(self._read_conn, query)
            if not statement.is_success():
                return query
            plan = self._prepared[query] = statement
        return plan

    def read_only_query(
        self, query: str, params: dict[str, object] | None = None, *, timeout_ms: int = 5000
    ) -> tuple[list[str], list[Row]]:
        """Run caller-written Cypher on a handle opened ``read_only``: Kuzu itself
        refuses any write there. Returns column names and rows.

        Raises:
            InvalidInputError: the query tries to write.
            StoreError: the query is invalid, failed or ran past ``timeout_ms``.
        """
        return self._guard.run(query, params or {}, timeout_ms, self._generation)

    def execute(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        """Run one parameterised query and return all rows."""
        with self._lock:
            try:
                result = self._conn.execute(query, params or {})
            except Exception as exc:
                raise StoreError(f"Kuzu query failed: {exc}") from exc
            rows = result.get_all() if not isinstance(result, list) else result[-1].get_all()
            return [list(r) for r in rows]

    def _execute_sliced(
        self, query: str, values: Sequence[str], *, key: str, **params: object
    ) -> list[Row]:
        """``execute`` once per ``ROW_SLICE`` of ``values`` (bound as ``$<key>``)."""
        rows: list[Row] = []
        for start in range(0, len(values), ge.ROW_SLICE):
            chunk = list(values[start : start + ge.ROW_SLICE])
            rows += self.execute(query, {**params, key: chunk})
        return rows

    def datasets(self) -> dict[str, str]:
        """Dataset id -> name."""
        return {r[0]: r[1] for r in self.execute("MATCH (d:Dataset) RETURN d.id, d.name")}

    def document_ids(self, among: Sequence[str] | None = None) -> set[str]:
        """Ids of committed data items; with ``among``, only those of these ids that exist."""
        if among is None:
            return {r[0] for r in self.execute("MATCH (d:Document) RETURN d.id")}
        if not among:
            return set()
        rows = self._execute_sliced(
            "MATCH (d:Document) WHERE d.id IN $ids RETURN d.id", among, key="ids"
        )
        return {r[0] for r in rows}

    def extraction_failures(self, among: Sequence[str]) -> dict[str, str]:
        """Data id -> reason, for those of ``among`` whose graph extraction failed."""
        rows = self._execute_sliced(
            "MATCH (f:ExtractionFailure) WHERE f.data_id IN $ids RETURN f.data_id, f.reason",
            among,
            key="ids",
        )
        return {r[0]: r[1] for r in rows}

    def documents(self, dataset_id: str | None = None) -> list[DocumentRecord]:
        """Every data item (of one dataset), ordered by id."""
        query = (
            "MATCH (d:Document) WHERE $ds IS NULL OR d.dataset_id = $ds "
            f"RETURN {DOCUMENT_COLUMNS} ORDER BY d.id"
        )
        return [document_from_row(r) for r in self.execute(query, {"ds": dataset_id})]

    def documents_by_source(self, dataset_id: str, source_ids: Sequence[str]) -> dict[str, str]:
        """source_id -> data id, for documents in a dataset that declare one of these sources."""
        if not source_ids:
            return {}
        rows = self._execute_sliced(
            "MATCH (d:Document) WHERE d.dataset_id = $ds AND d.source_id IN $sources "
            "RETURN d.source_id, d.id",
            source_ids,
            key="sources",
            ds=dataset_id,
        )
        return {r[0]: r[1] for r in rows}

    def write_ingest(
        self,
        datasets: Sequence[tuple[str, str, str]],
        items: Sequence[DataItemRecord],
        chunks: Sequence[ChunkRecord],
        replace_data_ids: Sequence[str] = (),
        graph: GraphWrite | None = None,
    ) -> GraphRemoval:
        """Write datasets, data items, chunks and their graph, and drop replaced
        items (with the graph elements only they supported), atomically.

        Returns what the replacement removed, for the vector store to follow.
        """
        doc_rows = [
            {
                "id": i.id,
                "dataset_id": i.dataset_id,
                "dataset_name": i.dataset_name,
                "name": i.name,
                "kind": i.kind,
                "content_hash": i.content_hash,
                "source_id": i.source_id,
                "metadata": i.metadata_json,
                "created_at": i.created_at,
                "chunk_count": i.chunk_count,
            }
            for i in items
        ]
        chunk_rows = [
            {
                "id": c.id,
                "data_id": c.data_id,
                "dataset_id": c.dataset_id,
                "chunk_index": c.chunk_index,
                "text": c.text,
                "message_ids": list(c.message_ids),
                "speaker": c.speaker,
                "timestamp": c.timestamp,
            }
            for c in chunks
        ]
        dataset_rows = [{"id": d[0], "name": d[1], "created_at": d[2]} for d in datasets]
        with self._lock:
            try:
                if replace_data_ids:
                    guard.checkpoint(self._conn)
                self._conn.execute("BEGIN TRANSACTION")
                touched: list[str] = []
                facts = validity.groups_of_data(self._conn, replace_data_ids)
                if replace_data_ids:
                    touched = self._replace_documents(list(replace_data_ids), graph)
                ge.execute_rows(
                    self._conn,
                    "UNWIND $rows AS r MERGE (d:Dataset {id: r.id}) "
                    "ON CREATE SET d.name = r.name, d.created_at = r.created_at",
                    dataset_rows,
                )
                bulk.copy_rows(self._conn, "Document", bulk.DOCUMENT, doc_rows)
                bulk.copy_rows(
                    self._conn,
                    "HAS_DATA",
                    bulk.EDGE,
                    [{"from": r["dataset_id"], "to": r["id"]} for r in doc_rows],
                )
                ge.execute_rows(
                    self._conn,
                    "UNWIND $rows AS r CREATE (:ExtractionFailure {data_id: r.id, "
                    "reason: r.reason})",
                    [
                        {"id": i.id, "reason": i.extraction_failure}
                        for i in items
                        if i.extraction_failure is not None
                    ],
                )
                bulk.copy_rows(self._conn, "Chunk", bulk.CHUNK, chunk_rows)
                bulk.copy_rows(
                    self._conn,
                    "CONTAINS",
                    bulk.EDGE,
                    [{"from": r["data_id"], "to": r["id"]} for r in chunk_rows],
                )
                if graph is not None:
                    ge.write_graph(self._conn, graph)
                    facts |= validity.groups_of(graph.relations, graph.dataset_id)
                validity.refresh(self._conn, facts)
                # Last, so that entities the new version mentions again survive.
                removed = ge.delete_orphan_entities(self._conn, touched)
                self._conn.execute("COMMIT")
            except Exception as exc:
                self._rollback()
                raise StoreError(f"Kuzu could not write the ingest: {exc}") from exc
            written = [e.id for e in graph.entities] if graph is not None else []
            self._advance_key_map(written, removed)
            self._generation += 1
            if replace_data_ids:
                guard.settle(self._conn)
        return GraphRemoval(data_ids=tuple(replace_data_ids), entity_ids=tuple(removed))

    def _advance_key_map(self, written: Sequence[str], removed: Sequence[str]) -> None:
        """Hand the next generation's entity key map over (``entity_key_map``): the
        entities the commit just made wrote, read again by id, and those it
        removed left out. Called with ``_lock`` held, after the commit."""

        def update(held: KeyMap) -> KeyMap:
            rows: list[Any] = []  # Kuzu's rows: lists in KEY_MAP_COLUMNS order
            if written:
                result = self._conn.execute(
                    f"MATCH (e:Entity) WHERE e.id IN $ids RETURN {KEY_MAP_COLUMNS}",
                    {"ids": sorted(set(written))},
                )
                rows = (result[-1] if isinstance(result, list) else result).get_all()
            return held.updated(rows, removed)

        try:
            self._key_maps().advance(self._generation, self._generation + 1, update)
        except Exception:  # the commit stands: the next lookup reads every entity
            log.warning("Kuzu: entity key map not carried over a commit", exc_info=True)
            self._key_maps().clear()

    def _rollback(self) -> None:
        with contextlib.suppress(Exception):  # no transaction was open
            self._conn.execute("ROLLBACK")

    def _replace_documents(self, data_ids: list[str], graph: GraphWrite | None) -> list[str]:
        """Delete the items a new version replaces and return the entities their
        chunks mentioned (orphan candidates, deleted last). Runs after a
        checkpoint and before the transaction's inserts, so ``kuzu_rel_guard``
        re-creates stored relationships only, none of an entity deleted last."""
        touched = self._delete_documents(data_ids)
        again = {m.entity_id for m in graph.mentions} if graph is not None else set()
        doomed = ge.orphan_entities(self._conn, [e for e in touched if e not in again])
        guard.refresh_groups(self._conn, ge.REL_TABLES, avoid=doomed)
        return touched

    def _delete_documents(self, data_ids: list[str]) -> list[str]:
        """Delete items, their chunks and what only they support; return the
        entities their chunks mentioned (orphan candidates)."""
        touched = ge.delete_data_graph(self._conn, data_ids)
        params = {"ids": data_ids}
        self._conn.execute("MATCH (c:Chunk) WHERE c.data_id IN $ids DETACH DELETE c", params)
        self._conn.execute("MATCH (d:Document) WHERE d.id IN $ids DETACH DELETE d", params)
        self._conn.execute("MATCH (f:ExtractionFailure) WHERE f.data_id IN $ids DELETE f", params)
        return touched

    def delete_data_items(self, data_ids: Sequence[str]) -> GraphRemoval:
        """Remove data items, their chunks and every graph element no remaining
        chunk supports, in one transaction."""
        with self._lock:
            try:
                guard.checkpoint(self._conn)
                self._conn.execute("BEGIN TRANSACTION")
                facts = validity.groups_of_data(self._conn, data_ids)
                touched = self._delete_documents(list(data_ids))
                validity.refresh(self._conn, facts)
                removed = ge.delete_orphan_entities(self._conn, touched)
                guard.refresh_groups(self._conn, ge.REL_TABLES)
                self._conn.execute("COMMIT")
                self._generation += 1
            except Exception as exc:
                self._rollback()
                raise StoreError(f"Kuzu could not delete data items: {exc}") from exc
            guard.settle(self._conn)
        return GraphRemoval(data_ids=tuple(data_ids), entity_ids=tuple(removed))

    def fence_writes(self, holder: str) -> None:
        """Nothing to fence: one process holds an embedded graph (``store_lock``)."""

    def delete_dataset(self, dataset_id: str) -> None:
        with self._lock:
            try:
                guard.checkpoint(self._conn)
                self._conn.execute("BEGIN TRANSACTION")
                self._conn.execute(
                    "MATCH (d:Dataset {id: $id}) DETACH DELETE d", {"id": dataset_id}
                )
                guard.refresh_groups(self._conn, ["HAS_DATA"])
                self._conn.execute("COMMIT")
            except Exception as exc:
                self._rollback()
                raise StoreError(f"Kuzu could not delete dataset {dataset_id}: {exc}") from exc
            guard.settle(self._conn)
            self._generation += 1
