"""``FalkorGraphStore``: a tenant's graph as one graph on a FalkorDB server.

The second ``GraphStore`` beside Kuzu (``kuzu_graph``), for replicas that share
one graph server (``RecallConfig.graph_url``; ``falkordb_server``). Only the
``falkordb_*`` modules import the ``falkordb`` client, an optional extra (MIT;
the server is SSPL-licensed).

What a write guarantees (``falkordb_writes``): each ``write_ingest`` and each
``delete_data_items`` is one query, which FalkorDB runs under the graph's write
lock and undoes whole if it fails part-way. So a reader, in this process or
another replica, sees an ingest either entirely or not at all, and a failed one
leaves nothing. A client that dies while sending sends nothing (the server runs
a command only once it is whole). When the reply is lost after the query was
sent (a dropped connection, a write timeout), the store asks the server whether
the write landed, through the new items' own (id, content hash, creation time),
and answers as the server says; it never re-sends a write.

Replicas that share a graph write it in turns (the writer lease of
``ingest.writer``), and the graph enforces the turns itself: once a replica
has claimed the graph (``fence_writes``), its writes land only while no other
replica has claimed it since (``falkordb_writes``, "fenced writes"). A
replica that stalled past its lease and sends a write prepared before gets a
``StoreError`` and the graph keeps nothing of it.

The price of one query per ingest: FalkorDB holds the graph's write lock from
the query's first change to its end, so the tenant's graph reads wait for a
running ingest. Measured: 0.98 s of server time for a 1 MB document with the
rules graph (1,285 chunks, 8,508 entities, 9,553 relations); p50 0.9 ms, p95
2.2 ms for a one-turn remember(). Other tenants' graphs do not wait.

What is not covered:
a server that dies mid-write without persistence loses its whole graph anyway,
and the server's durability is its own (AOF or RDB settings); edges whose end
node is missing are not written (Kuzu would fail the ingest), which the
pipeline never asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from recall_engine.core.cells import Record, Row
from recall_engine.core.errors import StoreError
from recall_engine.storage import falkordb_fact_times as fact_times
from recall_engine.storage import falkordb_schema as fs
from recall_engine.storage import falkordb_validity as validity
from recall_engine.storage.fact_times import Stamp
from recall_engine.storage.falkordb_readonly import run_read_only
from recall_engine.storage.falkordb_reads import FalkorReads
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.falkordb_writes import (
    claim_query,
    dataset_deletion_query,
    delete_query,
    ingest_query,
    validity_query,
)
from recall_engine.storage.graph_records import GraphRemoval, GraphWrite
from recall_engine.storage.kuzu_validity import groups_of
from recall_engine.storage.records import ChunkRecord, DataItemRecord

_ALREADY = ("already indexed", "already exists", "constraint already")


class FalkorGraphStore(FalkorReads):
    """One tenant's graph on a shared FalkorDB server; safe to share between threads.

    ``read`` is this adapter's own (its reads' Cypher); the ``GraphStore`` reads
    are typed (``falkordb_reads``).
    """

    def __init__(
        self, server: FalkorServer, store_name: str, *, stamp: Stamp | None = None
    ) -> None:
        """Select the tenant's graph, make sure its indexes and unique keys exist,
        and with ``stamp`` (graph extraction's ``supersession.stamp``) date the facts
        and events it kept from before facts had time (``falkordb_fact_times``).

        Raises:
            StoreError: the server failed or refused the schema, or the dating.
        """
        self._server = server
        self.name = server.graph_name(store_name)
        self._reads = server.reads.select_graph(self.name)
        self._writes = server.writes.select_graph(self.name)
        self._writer: str | None = None
        self._ensure_schema()
        if stamp is not None:
            try:
                fact_times.backfill(self, stamp)
            except StoreError as exc:
                raise StoreError(
                    f"The graph of tenant store {store_name!r} could not be brought to this "
                    f"version's layout ({exc}). Its data is kept, and the next open tries "
                    "again: check the server; if it fails again, report the error."
                ) from exc

    def __repr__(self) -> str:
        return f"FalkorGraphStore({self._server.where!r}, graph={self.name!r})"

    def _ensure_schema(self) -> None:
        """Create the missing range indexes, then the unique keys (which need them).

        Idempotent, and safe when two processes open the same graph at once: an
        index or key that the other made meanwhile is taken as made.
        """
        with self._server.calls("preparing the graph"):
            have = self._existing_indexes()
            for kind, name, prop in fs.index_statements():
                if (kind, name, prop) not in have:
                    self._schema_step(self._writes.query, fs.index_query(kind, name, prop))
            keys = self._existing_keys()
            for label in fs.LABELS:
                if label.key is not None and (label.name, label.key) not in keys:
                    self._schema_step(
                        self._server.writes.execute_command,
                        *("GRAPH.CONSTRAINT", "CREATE", self.name, "UNIQUE", "NODE"),
                        *(label.name, "PROPERTIES", 1, label.key),
                    )

    @staticmethod
    def _schema_step(call: Callable[..., object], *args: object) -> None:
        import redis

        try:
            call(*args)
        except redis.ResponseError as exc:
            if not any(word in str(exc).lower() for word in _ALREADY):
                raise StoreError(f"FalkorDB refused the graph's schema: {exc}") from None

    def _existing_indexes(self) -> set[tuple[str, str, str]]:
        rows = self.read("CALL db.indexes() YIELD label, properties, entitytype")
        return {(kind, label, prop) for label, props, kind in rows for prop in props}

    def _existing_keys(self) -> set[tuple[str, str]]:
        rows = self.read("CALL db.constraints() YIELD type, label, properties")
        return {(label, props[0]) for kind, label, props in rows if kind == "UNIQUE" and props}

    def fence_writes(self, holder: str) -> None:
        """Name ``holder`` the graph's writer: from now on this store's writes land
        only while no other holder has claimed the graph since (the caller holds
        the tenant's writer lease, and claims before it writes).

        Raises:
            StoreError: the server failed or refused the claim.
        """
        import redis

        text, params = claim_query(holder)
        with self._server.calls("claiming the graph for this replica's writes"):
            try:
                self._writes.query(text, params)
            except redis.ResponseError as exc:
                reason = self._server.scrub(str(exc))
                raise StoreError(f"FalkorDB refused the writer's claim: {reason}") from None
        self._writer = holder

    def close(self) -> None:
        """Nothing to release: the server's connection pools belong to the engine."""

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        """Run one of the store's own parameterised read queries; all rows.

        Raises:
            StoreError: the server failed or refused the query.
        """
        import redis

        with self._server.calls("reading the graph"):
            try:
                return [list(r) for r in self._reads.ro_query(query, params).result_set]
            except redis.ResponseError as exc:
                if "empty key" in str(exc).lower():  # no graph yet: nothing written
                    return []
                raise StoreError(f"FalkorDB query failed: {exc}") from None

    def read_only_query(
        self, query: str, params: dict[str, object] | None = None, *, timeout_ms: int = 5000
    ) -> tuple[list[str], list[Row]]:
        """Run caller-written Cypher through ``GRAPH.RO_QUERY`` (``falkordb_readonly``).

        Raises:
            InvalidInputError: the query writes, reaches outside the graph, or is not valid.
            QueryTimeoutError: it ran past ``timeout_ms``.
            StoreError: the server did not answer.
        """
        with self._server.calls("running a Cypher search"):
            return run_read_only(self._reads, query, params, timeout_ms)

    def write_ingest(
        self,
        datasets: Sequence[tuple[str, str, str]],
        items: Sequence[DataItemRecord],
        chunks: Sequence[ChunkRecord],
        replace_data_ids: Sequence[str] = (),
        graph: GraphWrite | None = None,
    ) -> GraphRemoval:
        """Write datasets, data items, chunks and their graph, and drop replaced
        items (with the graph elements only they supported), in one query.

        Returns what the replacement removed, for the vector store to follow.

        Raises:
            StoreError: the server refused or failed the write; nothing of it remains.
        """
        text, params = ingest_query(
            datasets, items, chunks, replace_data_ids, graph, writer=self._writer
        )
        touched = self._touched(replace_data_ids)
        facts = validity.groups_of_data(self, replace_data_ids)
        marker = items[0] if items else None
        removed = self._write(text, params, touched=touched, landed=lambda: self._has(marker))
        if graph is not None:
            facts |= groups_of(graph.relations, graph.dataset_id)
        validity.refresh(self, facts)
        return GraphRemoval(data_ids=tuple(replace_data_ids), entity_ids=tuple(removed))

    def delete_data_items(self, data_ids: Sequence[str]) -> GraphRemoval:
        """Remove data items, their chunks and every graph element no remaining
        chunk supports, in one query.

        Raises:
            StoreError: the server refused or failed the deletion; nothing changed.
        """
        if not data_ids:
            return GraphRemoval()
        text, params = delete_query(data_ids, writer=self._writer)
        touched = self._touched(data_ids)
        facts = validity.groups_of_data(self, data_ids)
        removed = self._write(
            text, params, touched=touched, landed=lambda: not self.document_ids(list(data_ids))
        )
        validity.refresh(self, facts)
        return GraphRemoval(data_ids=tuple(data_ids), entity_ids=tuple(removed))

    def delete_dataset(self, dataset_id: str) -> None:
        """Drop the dataset node; its data items must be forgotten first."""
        text, params = dataset_deletion_query(dataset_id, writer=self._writer)
        self._write(text, params, touched=[], landed=lambda: dataset_id not in self.datasets())

    def write_validity(self, changes: Sequence[Record]) -> None:
        """Write facts' recomputed validity (``falkordb_validity``).

        Raises:
            StoreError: the server refused or failed the write; nothing of it remains.
        """
        text, params = validity_query(changes, writer=self._writer)
        self._write(text, params, touched=[], landed=lambda: False)

    def write_guarded(self, text: str, params: dict[str, object]) -> bool:
        """Run one unfenced write whose query returns a row only when the graph is
        still as the caller read it (``falkordb_fact_times``); whether it was.

        Raises:
            StoreError: the server refused or failed the write; nothing of it remains.
        """
        import redis

        with self._server.calls("dating the graph's facts"):
            try:
                return bool(self._writes.query(text, params).result_set)
            except redis.ResponseError as exc:
                reason = self._server.scrub(str(exc))
                raise StoreError(
                    f"FalkorDB refused the write; nothing of it was kept: {reason}"
                ) from None

    def _touched(self, data_ids: Sequence[str]) -> list[str]:
        """The entities these items' chunks mention (what a removal may orphan):
        read before the write only to answer a write whose reply was lost."""
        if not data_ids:
            return []
        rows = self.read(
            "UNWIND $ids AS i MATCH (c:Chunk {data_id: i})-[:MENTIONS]->(e:Entity) "
            "RETURN DISTINCT e.id",
            {"ids": list(dict.fromkeys(data_ids))},
        )
        return [r[0] for r in rows]

    def _has(self, item: DataItemRecord | None) -> bool:
        if item is None:
            return False
        rows = self.read(
            "MATCH (d:Document {id: $id}) WHERE d.content_hash = $hash AND d.created_at = $at "
            "RETURN count(d)",
            {"id": item.id, "hash": item.content_hash, "at": item.created_at},
        )
        return bool(rows and rows[0][0])

    def _write(
        self,
        text: str,
        params: dict[str, object],
        *,
        touched: list[str],
        landed: Callable[[], object],
    ) -> list[str]:
        """Run one write query (``falkordb_writes``); the entities it removed.

        A lost reply is settled by asking the server (``landed``), never by sending
        the write again.

        Raises:
            StoreError: the server refused or failed the write, or the fence refused
                it (another replica claimed the graph); nothing of it remains.
        """
        import redis

        try:
            result = self._writes.query(text, params)
        except redis.ResponseError as exc:
            reason = self._server.scrub(str(exc))
            raise StoreError(
                f"FalkorDB refused the write; nothing of it was kept: {reason}"
            ) from None
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            reason = self._server.scrub(str(exc).strip() or type(exc).__name__)
            if not self._settled(landed):
                raise StoreError(
                    f"FalkorDB at {self._server.where} did not confirm a write ({reason}), "
                    "and it did not land; try again."
                ) from None
            gone = set(touched) - self.entity_ids()
            return sorted(gone)
        rows = result.result_set
        if not rows or not rows[0][1]:
            raise StoreError(
                "Another replica took over writing this tenant's graph (this one stalled "
                "past writer_lease_ttl_s), so the graph refused this replica's write; "
                "nothing of it was kept. Retry."
            )
        return list(rows[0][0])

    def _settled(self, landed: Callable[[], object]) -> bool:
        try:
            return bool(landed())
        except StoreError as exc:
            raise StoreError(
                f"FalkorDB at {self._server.where} did not confirm a write, and cannot be asked "
                f"whether it landed ({exc}); check the server, then remember() again."
            ) from None
