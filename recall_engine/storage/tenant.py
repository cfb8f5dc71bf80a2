"""A tenant's store: its own graph (Kuzu, or FalkorDB), LanceDB tables and in-memory indexes.

Write protocol (one writer per tenant at a time, serialised by ``write_lock``):
chunks and the vector rows of new graph elements go to LanceDB first, then one
Kuzu transaction writes the data items, chunks and their graph; that commit is
the moment a data item becomes visible. If Kuzu fails, the LanceDB rows are
deleted again. After a crash, LanceDB rows whose data item (or, for entities,
whose entity) never reached Kuzu are removed when the tenant is next opened, so
a half-written data item is never visible. Reads use the in-memory indexes and
only wait for the moment an ingest swaps its rows in.

A graph server (``FalkorServer``, ``RecallConfig.graph_url``): the tenant's graph
is one FalkorDB graph instead of Kuzu, written by the same protocol; its commit
point is the one query each ingest is (``falkordb_graph``).

Shared vector tables (``SharedVectors``: LanceDB at an ``s3://`` URI, the graph
in the local data dir or on the graph server): the chunks table is then the
truth about chunks for every process that opens it. Nothing is removed as an orphan on open (the
rows may belong to another process's graph), every chunk row is mirrored, and
``sync`` brings the mirror up to date before a read: a read sees every chunk
write or deletion another process committed more than ``refresh_s`` seconds
before the read began (0: before it began; each check is one version request).
With the graph on a server as well (the distributed profile), every replica's
graph is the same one: ``sync`` then also brings the entity, relation, event and
summary mirrors up to date and drops the cached dataset list, and every row waits
until the graph holds its item (``shared_mirror``), so another replica's ingest
becomes visible whole, within ``refresh_s`` of its graph commit, and a crashed one
never. With the graph in the data dir, graph vector rows are mirrored only for this
process's own graph (entities it knows, data items it committed), since the other
processes' graphs are not here; another process's half-written ingest may then
show its chunks until it rolls them back, and a crashed one leaves them until
they are forgotten.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from recall_engine.core.cells import Record
from recall_engine.core.errors import StoreError
from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.graph_records import (
    ENTITIES,
    EVENTS,
    RELATIONS,
    SUMMARIES,
    GraphRemoval,
    GraphWrite,
)
from recall_engine.storage.kuzu_fact_times import Stamp
from recall_engine.storage.lance_vectors import LanceVectorStore, TableState, tables_exist
from recall_engine.storage.protocols import GraphStore, VectorStore
from recall_engine.storage.records import ChunkRecord, DataItemRecord
from recall_engine.storage.shared_mirror import SharedMirror
from recall_engine.storage.tenant_open import META_FILE, open_backends
from recall_engine.storage.vector_index import VectorIndex, dict_keys
from recall_engine.storage.vector_location import SharedVectors

logger = logging.getLogger(__name__)


class TenantStore:
    """Everything stored for one tenant, opened once per process."""

    def __init__(
        self,
        tenant_id: str,
        root: Path,
        graph: GraphStore,
        vectors: VectorStore,
        meta: Record,
        shared: SharedVectors | None = None,
        *,
        graph_shared: bool = False,
    ) -> None:
        self.tenant_id = tenant_id
        self.shared = shared
        self._graph_shared = graph_shared
        self.root = root
        self.graph = graph
        self.vectors = vectors
        self.meta = meta
        self.index = ChunkIndex(int(meta["dimension"]))
        dimension = int(meta["dimension"])
        self.entity_index: VectorIndex[Record] = VectorIndex(dimension, dict_keys)
        self.relation_index: VectorIndex[Record] = VectorIndex(dimension, dict_keys)
        self.event_index: VectorIndex[Record] = VectorIndex(dimension, dict_keys)
        self.summary_index: VectorIndex[Record] = VectorIndex(dimension, dict_keys)
        self.write_lock = threading.Lock()
        self._datasets: dict[str, str] | None = None
        # Held while the chunk mirror and the shared table are brought into step, by
        # an ingest's commit, a deletion or a sync: none of them sees the others half done.
        self._mirror_lock = threading.RLock()
        self._chunk_state: TableState | None = None
        self._synced_at = -float("inf")  # monotonic start of the last version check
        # Tables and graph both shared: rows wait for their item's graph commit.
        self._gate = (
            SharedMirror(graph, self.index, self.graph_indexes())
            if shared is not None and graph_shared
            else None
        )

    @classmethod
    def exists(cls, root: Path, shared: SharedVectors | None = None) -> bool:
        """Whether the store was made, here or (shared tables) by another process.

        Raises:
            StoreError: the shared location cannot be read.
        """
        if (root / META_FILE).is_file():
            return True
        if shared is None:
            return False
        return tables_exist(shared.store_uri(root.name), shared.options, root.name)

    @classmethod
    def open(
        cls,
        root: Path,
        tenant_id: str,
        *,
        model_id: str,
        dimension: Callable[[], int],
        shared: SharedVectors | None = None,
        graph_server: FalkorServer | None = None,
        stamp: Stamp | None = None,
    ):
        """Open (or create) the store under ``root``; its vector tables at ``shared``
        (``<uri>/<root.name>``) when given, else under ``root``; its graph on
        ``graph_server`` (the graph named after ``root.name``) when given, else
        Kuzu under ``root``. ``stamp``: graph extraction's ``supersession.stamp``; a
        graph written before facts had time gets their times at open, once
        (``fact_times``).

        ``dimension`` is called only when the store is new (it may load the model).
        Shared tables are opened first, so that a location that cannot be used
        leaves no local trace.

        Raises:
            EmbeddingModelMismatchError: the store was built with another embedding model.
            ConfigError: the store was made with another graph, or (vectors in the data
                dir) the graph server's graph holds items this data dir has no vectors for
                (``falkordb_home``).
            StoreError: a backend could not be opened.
        """
        graph, vectors, meta = open_backends(
            root,
            tenant_id,
            model_id=model_id,
            dimension=dimension,
            shared=shared,
            graph_server=graph_server,
            stamp=stamp,
        )
        store = cls(
            tenant_id, root, graph, vectors, meta, shared, graph_shared=graph_server is not None
        )
        try:
            store._recover_and_load()
        except BaseException:
            graph.close()
            raise
        return store

    def _recover_and_load(self) -> None:
        if isinstance(self.vectors, LanceVectorStore) and self.vectors.shared:
            self._load_shared(self.vectors)
            return
        committed = self.graph.document_ids()
        orphans = self.vectors.data_ids() - committed
        if orphans:
            logger.warning(
                "tenant %s: removing chunks of %d data item(s) whose ingest never committed",
                self.tenant_id,
                len(orphans),
            )
            self.vectors.delete_data(sorted(orphans))
        records, vectors, tokens, sentences = self.vectors.load_chunks()
        keep = [i for i, r in enumerate(records) if r.data_id in committed]
        if len(keep) != len(records):
            records = [records[i] for i in keep]
            vectors = vectors[keep]
            tokens = [tokens[i] for i in keep]
            sentences = [sentences[i] for i in keep]
        self.index.add(records, vectors, tokens, sentences)
        self._recover_graph_vectors(committed)

    def _recover_graph_vectors(self, committed: set[str]) -> None:
        tables = self.vectors.graph
        stale = set()
        for table in (RELATIONS, EVENTS, SUMMARIES):
            stale |= tables.column(table, "data_id") - committed
        if stale:
            tables.delete_data(sorted(stale))
        orphans = tables.column(ENTITIES, "id") - self.graph.entity_ids()
        if orphans:
            tables.delete_where(ENTITIES, "id", orphans)
        if stale or orphans:
            logger.warning(
                "tenant %s: removed graph vectors of %d uncommitted item(s), %d entities",
                self.tenant_id,
                len(stale),
                len(orphans),
            )
        for table, index in self.graph_indexes().items():
            index.add(*tables.load(table))

    def _load_shared(self, vectors: LanceVectorStore) -> None:
        """Fill the mirrors from shared tables: every chunk; the graph rows of this
        process's graph only (each id once, its latest row); nothing deleted."""
        self.sync(force=True)
        if self._gate is not None:  # the sync filled the graph mirrors too
            return
        committed, entities = self.graph.document_ids(), self.graph.entity_ids()
        for table, index in self.graph_indexes().items():
            rows, found = vectors.graph.load(table)
            column, known = ("id", entities) if table == ENTITIES else ("data_id", committed)
            latest = {row["id"]: at for at, row in enumerate(rows) if row[column] in known}
            picked = sorted(latest.values())
            index.add([rows[at] for at in picked], found[picked])

    def sync(self, *, force: bool = False) -> None:
        """Bring the chunk mirror up to date with the shared chunks table, when the
        last check began more than ``refresh_s`` seconds ago (or ``force``).

        A no-op on a store whose tables are its own. Every read that resolves its
        dataset scope (``datasets``) calls it first.

        Raises:
            StoreError: the shared table could not be read.
        """
        vectors = self.vectors
        if self.shared is None or not isinstance(vectors, LanceVectorStore):
            return
        asked = time.monotonic()
        if not force and self._synced_at >= asked - self.shared.refresh_s:
            return
        with self._mirror_lock:
            if not force and self._synced_at >= asked - self.shared.refresh_s:
                return  # another thread checked while this one waited
            started = time.monotonic()
            state, changes = vectors.chunk_changes(
                self._chunk_state, have=self.index.alive, mirrored=self.index.vectors.live_ids
            )
            if self._gate is not None:
                self._gate.chunk_changes(changes)
                self._gate.graph_changes(vectors.graph)
                self._datasets = None  # other replicas add and drop datasets too
            elif changes is not None:
                if changes.gone:
                    self.index.remove_chunks(changes.gone)
                self.index.add(changes.records, changes.vectors, changes.tokens, changes.sentences)
            self._chunk_state = state
            self._synced_at = started

    def graph_indexes(self) -> dict[str, VectorIndex[Record]]:
        """The in-memory index of each LanceDB graph table."""
        return {
            ENTITIES: self.entity_index,
            RELATIONS: self.relation_index,
            EVENTS: self.event_index,
            SUMMARIES: self.summary_index,
        }

    @property
    def datasets_cached(self) -> bool:
        """``datasets()`` would read no file and no server: the store's tables and graph
        are its own (no mirror to sync) and its dataset list is cached."""
        return self.shared is None and not self._graph_shared and self._datasets is not None

    def datasets(self) -> dict[str, str]:
        """Dataset id -> name (cached: every recall resolves its scope through it).

        With shared tables, the mirror is synced first, and the datasets that hold
        another process's chunks are listed too.

        Raises:
            StoreError: the shared chunks table could not be read.
        """
        self.sync()
        cached = self._datasets
        if cached is None:
            cached = self._datasets = self.graph.datasets()
        if self.shared is None:
            return dict(cached)
        return {**self.index.live_datasets(), **cached}

    def delete_dataset(self, dataset_id: str) -> None:
        """Drop the dataset node; its data items must be forgotten first."""
        self.graph.delete_dataset(dataset_id)
        self._datasets = None

    def commit_ingest(
        self,
        *,
        datasets: Sequence[tuple[str, str, str]],
        items: Sequence[DataItemRecord],
        chunks: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
        sentences: Sequence[np.ndarray] | None = None,
        replace_data_ids: Sequence[str] = (),
        graph: GraphWrite | None = None,
    ) -> None:
        """Make an ingest durable and visible; on failure nothing of it remains.

        ``sentences``: each chunk's sentence vectors (``storage.sentence_index``).
        ``replace_data_ids``: stored items the ingest takes out, in the same commit;
        one that is also among ``items`` (an item stored again under its id) keeps
        its stored rows until the graph commits, and has them back if it fails.
        The caller holds ``write_lock``.
        """
        with self._mirror_lock:
            self._commit(
                datasets, items, chunks, (vectors, tokens, sentences), replace_data_ids, graph
            )

    def _commit(
        self,
        datasets: Sequence[tuple[str, str, str]],
        items: Sequence[DataItemRecord],
        chunks: Sequence[ChunkRecord],
        indexed: tuple[np.ndarray, Sequence[Sequence[str]], Sequence[np.ndarray] | None],
        replace_data_ids: Sequence[str],
        graph: GraphWrite | None,
    ) -> None:
        vectors, tokens, sentences = indexed
        new_ids = [item.id for item in items]
        new_entities = [e.id for e in graph.entities] if graph is not None else []
        again = sorted(set(new_ids).intersection(replace_data_ids))
        kept = self._set_aside(again)
        try:
            self.vectors.delete_data(again)
            self.vectors.graph.delete_data(again)
            self.vectors.add_chunks(chunks, vectors, tokens, sentences)
            for batch in graph.vector_rows if graph is not None else ():
                self.vectors.graph.add(batch)
            removal = self.graph.write_ingest(
                datasets, items, chunks, replace_data_ids, graph=graph
            )
        except BaseException:
            self._undo_vectors(new_ids, new_entities)
            self._put_back(kept)
            raise
        if (known := self._datasets) is not None:  # as the graph merges them: a new one
            self._datasets = {**{d[0]: d[1] for d in datasets}, **known}  # named as written
        if replace_data_ids:
            self.index.remove_data(replace_data_ids)
            self._forget_graph_vectors(removal, written=again)
        self.index.add(chunks, vectors, tokens, sentences)
        if graph is not None:
            self._mirror_new(graph)

    def _mirror_new(self, graph: GraphWrite) -> None:
        indexes = self.graph_indexes()
        for batch in graph.vector_rows:
            indexes[batch.table].add(batch.rows, batch.vectors)
        refresh = graph.entity_refresh
        if refresh is None or not refresh.rows:
            return
        ids = [row["id"] for row in refresh.rows]
        self.entity_index.remove(ids=ids)
        self.entity_index.add(refresh.rows, refresh.vectors)
        try:  # after the commit: a failure leaves a stale vector, never a wrong graph
            self.vectors.graph.delete_where(ENTITIES, "id", ids)
            self.vectors.graph.add(refresh)
        except StoreError as exc:
            logger.warning("tenant %s: entity vectors not refreshed: %s", self.tenant_id, exc)

    def _undo_vectors(self, data_ids: list[str], entity_ids: Sequence[str] = ()) -> None:
        try:
            self.vectors.delete_data(data_ids)
            self.vectors.graph.delete_data(data_ids)
            self.vectors.graph.delete_where(ENTITIES, "id", entity_ids)
        except StoreError:
            logger.exception("tenant %s: rollback of LanceDB rows failed", self.tenant_id)

    def _set_aside(self, data_ids: Sequence[str]) -> tuple[pa.Table, dict[str, pa.Table]] | None:
        """The LanceDB rows of stored items a commit writes again (``_put_back``
        restores them if it fails); None for none."""
        if not data_ids:
            return None
        return self.vectors.take_data(data_ids), self.vectors.graph.take_data(data_ids)

    def _put_back(self, kept: tuple[pa.Table, dict[str, pa.Table]] | None) -> None:
        """Restore what ``_set_aside`` took, after a failed commit has undone its rows."""
        if kept is None:
            return
        try:
            self.vectors.put_back(kept[0])
            self.vectors.graph.put_back(kept[1])
        except StoreError:
            logger.exception("tenant %s: stored rows of items written again lost", self.tenant_id)

    def _forget_graph_vectors(self, removal: GraphRemoval, written: Sequence[str] = ()) -> None:
        """Drop what ``removal`` took out of the graph from the mirrors and LanceDB;
        the LanceDB rows of ``written`` (removed items the same commit wrote again)
        are the new ones and stay."""
        data_ids, entity_ids = list(removal.data_ids), list(removal.entity_ids)
        for index in (self.relation_index, self.event_index, self.summary_index):
            index.remove(data_ids=data_ids)
        self.entity_index.remove(ids=entity_ids)
        stay = set(written)
        data_ids = [d for d in data_ids if d not in stay]
        try:
            self.vectors.delete_data(data_ids)
            self.vectors.graph.delete_data(data_ids)
            self.vectors.graph.delete_where(ENTITIES, "id", entity_ids)
        except StoreError as exc:  # orphans are removed on the next open
            logger.warning("tenant %s: stale vectors left for cleanup: %s", self.tenant_id, exc)

    def forget(self, data_ids: Sequence[str]) -> int:
        """Delete data items and their chunks; return the number of chunks removed.

        The rows stay in the vector tables' files until ``purge_deleted``. The
        caller holds ``write_lock``.
        """
        if not data_ids:
            return 0
        with self._mirror_lock:
            removal = self.graph.delete_data_items(list(data_ids))
            removed = self.index.remove_data(data_ids)
            self._forget_graph_vectors(removal)
            return removed

    def purge_deleted(self) -> None:
        """Take every deleted row out of the files of the store's own vector tables
        (not shared ones): their data files and older versions (``lance_purge``). A
        failure is logged: the rows are unreadable already, and the next purge takes
        them out. The caller holds ``write_lock``.
        """
        try:
            self.vectors.purge_deleted()
        except StoreError as exc:
            logger.warning("tenant %s: deleted rows left on disk: %s", self.tenant_id, exc)

    def close(self) -> None:
        self.graph.close()
