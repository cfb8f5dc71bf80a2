"""The in-memory mirrors of a store whose graph and vector tables other replicas
write too (a graph server and shared LanceDB tables).

Every replica writes a data item's chunk and graph vector rows first and its
graph in one commit after them (``TenantStore._commit``), so a row in a shared
table may belong to an item that is not committed yet, or never will be (its
writer died). The mirror therefore admits a row only once the graph holds its
owner (the data item of a chunk, relation, event or summary; the entity of an
entity row) and holds the others back, asking the graph again at every sync
until the owner is there or the row leaves the table (rolled back). So no read
sees half an item, and every replica sees another's new chunks, entities,
relations, events and summaries at its next sync after the graph commit.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from recall_engine.core.cells import Record
from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.graph_records import ENTITIES
from recall_engine.storage.lance_graph import LanceGraphTables, TableState
from recall_engine.storage.lance_vectors import ChunkChanges
from recall_engine.storage.protocols import GraphStore
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.vector_index import VectorIndex

Held = tuple[Record, np.ndarray]


class SharedMirror:
    """Rows of shared tables held back until the graph commits their owner.

    The caller serialises calls (``TenantStore``'s mirror lock).
    """

    def __init__(
        self,
        graph: GraphStore,
        chunks: ChunkIndex,
        indexes: Mapping[str, VectorIndex[Record]],
    ) -> None:
        self._graph = graph
        self._chunks = chunks
        self._indexes = indexes
        self._held_chunks: dict[str, tuple[ChunkRecord, np.ndarray, list[str], np.ndarray]] = {}
        self._held: dict[str, dict[str, Held]] = {table: {} for table in indexes}
        self._states: dict[str, TableState | None] = dict.fromkeys(indexes)

    def held(self) -> int:
        """How many rows wait for their owner's graph commit."""
        return len(self._held_chunks) + sum(len(rows) for rows in self._held.values())

    def chunk_changes(self, changes: ChunkChanges | None) -> None:
        """Take in what changed in the chunks table, then admit every held chunk
        whose data item the graph now holds."""
        held = self._held_chunks
        if changes is not None:
            if changes.gone:
                self._chunks.remove_chunks(changes.gone)
                for chunk_id in changes.gone:
                    held.pop(chunk_id, None)
            for at, record in enumerate(changes.records):
                held[record.id] = (
                    record,
                    changes.vectors[at],
                    changes.tokens[at],
                    changes.sentences[at],
                )
        if not held:
            return
        committed = self._graph.document_ids(sorted({h[0].data_id for h in held.values()}))
        ready = [cid for cid, h in held.items() if h[0].data_id in committed]
        if not ready:
            return
        rows = [held.pop(cid) for cid in ready]
        self._chunks.add(
            [h[0] for h in rows],
            np.stack([h[1] for h in rows]),
            [h[2] for h in rows],
            [h[3] for h in rows],
        )

    def graph_changes(self, tables: LanceGraphTables) -> None:
        """Take in what changed in each graph table, then admit the held rows whose
        item (entity) the graph now holds; a row that comes again replaces the old.

        Raises:
            StoreError: a table could not be read.
        """
        for table, index in self._indexes.items():
            state, changes = tables.changes(
                table, self._states[table], have=index.alive, mirrored=index.live_ids
            )
            self._states[table] = state
            held = self._held[table]
            if changes is None:
                continue
            if changes.gone:
                index.remove(ids=changes.gone)
                for row_id in changes.gone:
                    held.pop(row_id, None)
            for at, row in enumerate(changes.rows):
                held[row["id"]] = (row, changes.vectors[at])
        for table, held in self._held.items():
            if held:
                self._admit(table, held)

    def _admit(self, table: str, held: dict[str, Held]) -> None:
        if table == ENTITIES:
            known = self._graph.entity_ids()
            ready = [row_id for row_id in held if row_id in known]
        else:
            owners = sorted({row["data_id"] for row, _ in held.values() if row.get("data_id")})
            committed = self._graph.document_ids(owners)
            ready = [row_id for row_id, (row, _) in held.items() if row.get("data_id") in committed]
        if not ready:
            return
        rows = [held.pop(row_id) for row_id in ready]
        index = self._indexes[table]
        index.remove(ids=ready)
        index.add([row for row, _ in rows], np.stack([v for _, v in rows]))
