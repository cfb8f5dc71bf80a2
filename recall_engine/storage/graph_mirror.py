"""Keeps a store's in-memory graph vector indexes in step with graph tables that
other processes write too (the distributed profile: the graph on a server, the
vector tables at an ``s3://`` URI).

Each ``sync`` asks each graph table for its version (one request each); a table
that changed is diffed by row id (``lance_changes``), so only new rows are
fetched, and rows that left the table leave the index. A new row joins its index
only once the shared graph holds what it belongs to: its committed data item
(relations, events, summaries) or its entity. Another process writes these rows
before its graph commit, so until then they wait in ``pending`` and are checked
again at each later sync (one graph query per table that has some): a half-written
ingest never shows, and one that commits later shows from the next sync on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recall_engine.storage.graph_records import ENTITIES
from recall_engine.storage.lance_changes import TableState
from recall_engine.storage.protocols import GraphStore, GraphVectorTables
from recall_engine.storage.vector_index import VectorIndex

Pending = dict[str, tuple[dict[str, Any], np.ndarray]]
"""Row id -> (row, vector) of rows not yet backed by the graph; the latest row of an id wins."""


class GraphMirror:
    """The sync state of one store's graph indexes (the caller serialises calls)."""

    def __init__(self, indexes: dict[str, VectorIndex[dict[str, Any]]]) -> None:
        self._indexes = indexes
        self._states: dict[str, TableState | None] = dict.fromkeys(indexes)
        self._pending: dict[str, Pending] = {table: {} for table in indexes}

    def sync(self, tables: GraphVectorTables, graph: GraphStore) -> None:
        """Bring every graph index up to date with its table and with the graph.

        Raises:
            StoreError: a table or the graph could not be read.
        """
        for table, index in self._indexes.items():
            state, changes = tables.changes(table, self._states[table], have=index.alive)
            pending = self._pending[table]
            if changes is not None:
                index.remove(ids=changes.gone)
                for gone in changes.gone:
                    pending.pop(gone, None)
                for row, vector in zip(changes.rows, changes.vectors, strict=True):
                    pending[row["id"]] = (row, vector)
            self._states[table] = state
            if pending:
                self._admit(table, index, pending, graph)

    @staticmethod
    def _admit(
        table: str, index: VectorIndex[dict[str, Any]], pending: Pending, graph: GraphStore
    ) -> None:
        """Move the pending rows that the graph now backs into ``index``."""
        if table == ENTITIES:
            known = graph.entity_ids()
            ready = [rid for rid in pending if rid in known]
        else:
            data_ids = sorted({row["data_id"] for row, _ in pending.values()})
            committed = graph.document_ids(data_ids)
            ready = [rid for rid, (row, _) in pending.items() if row["data_id"] in committed]
        if not ready:
            return
        rows = [pending[rid][0] for rid in ready]
        vectors = np.stack([pending.pop(rid)[1] for rid in ready]).astype(np.float32)
        index.remove(ids=ready)  # an older row of the same id
        index.add(rows, vectors)
