"""FalkorDB's Cypher for the reads of ``GraphStore``, returning typed records.

A mixin of ``FalkorGraphStore``: every query runs through its ``read``
(``GRAPH.RO_QUERY`` on the read pool). Lookups by id, key or data id start from
an index (``UNWIND $ids AS i MATCH (x {id: i})``), never from a scan compared
with a list. The Cypher is the openCypher subset Neo4j 5 accepts too.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall_engine.core.cells import Row
from recall_engine.core.graph import Entity, Relation
from recall_engine.storage import falkordb_schema as fs
from recall_engine.storage.document_pages import DocumentPageReads
from recall_engine.storage.graph_reads import (
    DOCUMENT_COLUMNS,
    EDGE_COLUMNS,
    ENTITY_RECORD_COLUMNS,
    DocumentRecord,
    EdgeRecord,
    EntityRecord,
    MentionLink,
    TableSchema,
    document_from_row,
    edge_from_row,
    entity_record_from_row,
)
from recall_engine.storage.kuzu_graph_elements import (
    ENTITY_RETURN,
    RELATION_RETURN,
    entity_from_row,
    relation_from_row,
)

_EDGE_RETURN = f"RETURN {EDGE_COLUMNS} ORDER BY r.id"


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


class FalkorReads(DocumentPageReads):
    """Typed graph reads over ``read`` (implemented by ``FalkorGraphStore``)."""

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        raise NotImplementedError  # pragma: no cover - FalkorGraphStore.read

    def _edges(
        self, match: str, ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        ids, scope = _unique(ids), _unique(dataset_ids)
        if not ids or not scope:
            return []
        rows = self.read(
            f"UNWIND $ids AS i {match} WHERE r.dataset_id IN $ds "
            f"WITH DISTINCT r WITH r, startNode(r) AS a, endNode(r) AS b {_EDGE_RETURN}",
            {"ids": ids, "ds": scope},
        )
        return [edge_from_row(row) for row in rows]

    def edges_by_id(
        self, relation_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """These relations (those of ``dataset_ids``), ordered by id."""
        return self._edges(
            "MATCH (:Entity)-[r:RELATES {id: i}]->(:Entity)", relation_ids, dataset_ids
        )

    def edges_touching(
        self, entity_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` with either end in ``entity_ids``, ordered by id."""
        return self._edges("MATCH (:Entity {id: i})-[r:RELATES]-(:Entity)", entity_ids, dataset_ids)

    def edges_from(self, entity_ids: Sequence[str], dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` whose source is in ``entity_ids``, ordered by id."""
        return self._edges(
            "MATCH (:Entity {id: i})-[r:RELATES]->(:Entity)", entity_ids, dataset_ids
        )

    def edges_in_chunks(
        self, chunk_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations of ``dataset_ids`` extracted from these chunks, ordered by id."""
        return self._edges(
            "MATCH (:Entity)-[r:RELATES {chunk_id: i}]->(:Entity)", chunk_ids, dataset_ids
        )

    def edges_of_datasets(self, dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Every relation of ``dataset_ids``, ordered by id."""
        scope = _unique(dataset_ids)
        if not scope:
            return []
        rows = self.read(
            f"MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE r.dataset_id IN $ds {_EDGE_RETURN}",
            {"ds": scope},
        )
        return [edge_from_row(row) for row in rows]

    def entities_by_keys(
        self, keys: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EntityRecord]:
        """Entities of ``dataset_ids`` with one of these lookup keys (normalised name,
        alias or surname), each once, ordered by id."""
        keys, scope = sorted(set(keys)), _unique(dataset_ids)
        if not keys or not scope:
            return []
        rows = self.read(
            "UNWIND $keys AS k MATCH (e:Entity) WHERE k IN e.keys AND e.dataset_id IN $ds "
            "WITH DISTINCT e "
            "RETURN " + ENTITY_RECORD_COLUMNS + " ORDER BY e.id",
            {"ds": scope, "keys": keys},
        )
        return [entity_record_from_row(r) for r in rows]

    def entity_candidates(self, dataset_id: str, keys: Sequence[str]) -> list[Entity]:
        """Stored entities of a dataset whose name, alias or surname key is in
        ``keys``, by id: each key is one lookup in the index on ``keys`` (a list
        property, indexed by item)."""
        if not keys:
            return []
        rows = self.read(
            "UNWIND $keys AS k MATCH (e:Entity) WHERE k IN e.keys AND e.dataset_id = $ds "
            f"WITH DISTINCT e RETURN {ENTITY_RETURN} ORDER BY e.id",
            {"keys": sorted(set(keys)), "ds": dataset_id},
        )
        return [entity_from_row(row) for row in rows]

    def mention_links(self, chunk_ids: Sequence[str] | None = None) -> list[MentionLink]:
        """Every (chunk, entity) mention of the tenant (of these chunks only, when
        given), each once, by chunk then entity."""
        if chunk_ids is None:
            rows = self.read(
                "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) "
                "RETURN DISTINCT c.id, e.id, e.dataset_id ORDER BY c.id, e.id"
            )
        elif chunk_ids:
            rows = self.read(
                "UNWIND $ids AS i MATCH (c:Chunk {id: i})-[:MENTIONS]->(e:Entity) "
                "RETURN DISTINCT c.id, e.id, e.dataset_id ORDER BY c.id, e.id",
                {"ids": _unique(chunk_ids)},
            )
        else:
            return []
        return [MentionLink(chunk_id=c, entity_id=e, dataset_id=d) for c, e, d in rows]

    def mention_chunks(self, entity_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """Entity id -> (chunk id, data id) of the chunks that mention it, in chunk order."""
        if not entity_ids:
            return {}
        rows = self.read(
            "UNWIND $ids AS i MATCH (c:Chunk)-[:MENTIONS]->(e:Entity {id: i}) "
            "RETURN e.id, c.id, c.data_id ORDER BY c.data_id, c.chunk_index",
            {"ids": _unique(entity_ids)},
        )
        out: dict[str, list[tuple[str, str]]] = {}
        for eid, cid, did in rows:
            out.setdefault(eid, []).append((cid, did))
        return out

    def graph_schema(self) -> list[TableSchema]:
        """The labels and relationship types, by name, with their properties: the
        store's own model (``falkordb_schema``), since FalkorDB keeps none."""
        return fs.tables()

    def datasets(self) -> dict[str, str]:
        """Dataset id -> name."""
        return {r[0]: r[1] for r in self.read("MATCH (d:Dataset) RETURN d.id, d.name")}

    def document_ids(self, among: Sequence[str] | None = None) -> set[str]:
        """Ids of committed data items; with ``among``, only those of these ids that exist."""
        if among is None:
            return {r[0] for r in self.read("MATCH (d:Document) RETURN d.id")}
        if not among:
            return set()
        rows = self.read(
            "UNWIND $ids AS i MATCH (d:Document {id: i}) RETURN d.id", {"ids": _unique(among)}
        )
        return {r[0] for r in rows}

    def extraction_failures(self, among: Sequence[str]) -> dict[str, str]:
        """Data id -> reason, for those of ``among`` whose graph extraction failed."""
        if not among:
            return {}
        rows = self.read(
            "UNWIND $ids AS i MATCH (f:ExtractionFailure {data_id: i}) RETURN f.data_id, f.reason",
            {"ids": _unique(among)},
        )
        return {r[0]: r[1] for r in rows}

    def documents(self, dataset_id: str | None = None) -> list[DocumentRecord]:
        """Every data item (of one dataset), ordered by id."""
        if dataset_id is None:
            rows = self.read(f"MATCH (d:Document) RETURN {DOCUMENT_COLUMNS} ORDER BY d.id")
        else:
            rows = self.read(
                f"MATCH (d:Document {{dataset_id: $ds}}) RETURN {DOCUMENT_COLUMNS} ORDER BY d.id",
                {"ds": dataset_id},
            )
        return [document_from_row(row) for row in rows]

    def documents_by_source(self, dataset_id: str, source_ids: Sequence[str]) -> dict[str, str]:
        """source_id -> data id, for documents in a dataset that declare one of these sources."""
        if not source_ids:
            return {}
        rows = self.read(
            "UNWIND $sources AS s MATCH (d:Document {source_id: s}) WHERE d.dataset_id = $ds "
            "RETURN d.source_id, d.id",
            {"sources": _unique(source_ids), "ds": dataset_id},
        )
        return {r[0]: r[1] for r in rows}

    def entity_ids(self) -> set[str]:
        return {r[0] for r in self.read("MATCH (e:Entity) RETURN e.id")}

    def entities(self, dataset_ids: Sequence[str] | None = None) -> list[Entity]:
        """Every entity (of the given datasets), ordered by id."""
        where = "" if dataset_ids is None else "WHERE e.dataset_id IN $ds "
        rows = self.read(
            f"MATCH (e:Entity) {where}RETURN {ENTITY_RETURN} ORDER BY e.id",
            None if dataset_ids is None else {"ds": list(dataset_ids)},
        )
        return [entity_from_row(r) for r in rows]

    def relations(self, dataset_ids: Sequence[str] | None = None) -> list[Relation]:
        """Every relation (of the given datasets), ordered by id."""
        where = "" if dataset_ids is None else "WHERE r.dataset_id IN $ds "
        rows = self.read(
            f"MATCH (a:Entity)-[r:RELATES]->(b:Entity) {where}"
            f"RETURN {RELATION_RETURN} ORDER BY r.id",
            None if dataset_ids is None else {"ds": list(dataset_ids)},
        )
        return [relation_from_row(r) for r in rows]
