"""The knowledge-graph half of the Kuzu schema, and its parameterised queries.

Used by ``KuzuGraphStore`` inside its transactions: these functions take a
connection-like object with ``execute(query, params)`` and never import kuzu.

Deletion follows support: relations, events and mentions belong to a chunk,
summaries to a data item; an entity lives while at least one chunk mentions it.

New rows go in with ``COPY`` (``kuzu_bulk``), whose cost follows the rows
written; updates and deletions go as parameterised queries in slices of
``ROW_SLICE`` (``execute_rows``), all inside the caller's transaction: Kuzu binds
and plans a query while holding the GIL, for a time that grows with its
parameter list (8,000 mention rows held it ~150 ms and stalled the event loop).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from recall_engine.core.cells import Cell, Record, Row
from recall_engine.core.graph import Entity, EntityType, Relation
from recall_engine.storage import kuzu_bulk as bulk
from recall_engine.storage import kuzu_entity_lists as lists
from recall_engine.storage import kuzu_validity as validity
from recall_engine.storage.graph_reads import aliases_from
from recall_engine.storage.graph_records import GraphWrite

GRAPH_SCHEMA = [
    "CREATE NODE TABLE IF NOT EXISTS Entity("
    "id STRING PRIMARY KEY, name STRING, normalized_name STRING, type STRING, "
    "namespace STRING, identifier STRING, description STRING, aliases STRING, "
    "keys STRING, first_seen STRING, last_seen STRING, dataset_id STRING)",
    "CREATE NODE TABLE IF NOT EXISTS EntityType(id STRING PRIMARY KEY)",
    "CREATE NODE TABLE IF NOT EXISTS Event("
    "id STRING PRIMARY KEY, text STRING, time STRING, time_text STRING, granularity STRING, "
    "chunk_id STRING, data_id STRING, dataset_id STRING, namespace STRING, valid_from STRING)",
    # stores made before events had validity gain the column (null: unknown)
    "ALTER TABLE Event ADD IF NOT EXISTS valid_from STRING",
    "CREATE NODE TABLE IF NOT EXISTS Summary("
    "id STRING PRIMARY KEY, data_id STRING, dataset_id STRING, namespace STRING, "
    "text STRING, method STRING)",
    "CREATE REL TABLE IF NOT EXISTS IS_A(FROM Entity TO EntityType)",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Chunk TO Entity, surface STRING, "
    "start_offset INT64, end_offset INT64, count INT64)",
    "CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, id STRING, "
    "predicate STRING, raw_predicate STRING, context STRING, confidence DOUBLE, "
    "time_text STRING, timestamp STRING, granularity STRING, chunk_id STRING, "
    "data_id STRING, dataset_id STRING, valid_from STRING, valid_until STRING, "
    "superseded_by STRING, superseded_by_chunk STRING, family STRING)",
    *validity.MIGRATIONS,
    "CREATE REL TABLE IF NOT EXISTS EVENT_OF(FROM Event TO Entity)",
    "CREATE REL TABLE IF NOT EXISTS EVENT_IN(FROM Event TO Chunk)",
    "CREATE REL TABLE IF NOT EXISTS MADE_FROM(FROM Summary TO Document)",
]

REL_TABLES = ("HAS_DATA", "CONTAINS", "IS_A", "MENTIONS", "RELATES", "EVENT_OF", "EVENT_IN",
              "MADE_FROM")  # fmt: skip
"""Every relationship table of the store (``SCHEMA`` and ``GRAPH_SCHEMA``)."""

# Constant column lists for RETURN clauses (no user text is ever spliced in).
ENTITY_RETURN = (
    "e.id, e.name, e.normalized_name, e.type, e.namespace, e.identifier, e.description, "
    "e.aliases, e.first_seen, e.last_seen, e.dataset_id"
)
RELATION_RETURN = (
    "r.id, a.id, b.id, r.predicate, r.raw_predicate, r.context, r.confidence, "
    "r.time_text, r.timestamp, r.granularity, r.chunk_id, a.namespace, "
    "r.valid_from, r.valid_until, r.superseded_by, r.superseded_by_chunk, r.family"
)


ROW_SLICE = 128
"""Most rows (or ids) one query call carries; each call then holds the GIL for a
few milliseconds only."""


class Connection(Protocol):
    def execute(self, query: str, params: dict[str, object] | None = None) -> Any: ...


ID_SLICE = 2048
"""Most ids one ``UNWIND $ids AS i MATCH (x {id: i})`` call carries: Kuzu answers
it with one scan of the table joined to the ids by hash, so fewer, larger calls
scan less (``WHERE x.id IN $ids`` instead compares every row with every id)."""


def execute_rows(
    conn: Connection,
    query: str,
    rows: Sequence[Cell],
    *,
    key: str = "rows",
    size: int | None = None,
) -> list[Row]:
    """Run ``query`` once per slice of ``rows`` (bound as ``$<key>``; ``ROW_SLICE``
    rows unless ``size``), in the caller's transaction; return the rows every call
    returned, in order."""
    out: list[Row] = []
    step = size or ROW_SLICE
    for start in range(0, len(rows), step):
        result = conn.execute(query, {key: list(rows[start : start + step])})
        if result is not None:
            out.extend(list(r) for r in result.get_all())
    return out


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def entity_from_row(row: Sequence[Cell]) -> Entity:
    """An ``Entity`` from a row in ``ENTITY_RETURN`` order."""
    return Entity(
        id=row[0],
        name=row[1],
        normalized_name=row[2],
        type=EntityType(row[3]),
        namespace=row[4],
        identifier=row[5],
        description=row[6] or "",
        aliases=aliases_from(row[7]),
        first_seen=_time(row[8]),
        last_seen=_time(row[9]),
    )


def relation_from_row(row: Sequence[Cell]) -> Relation:
    """A ``Relation`` from a row in ``RELATION_RETURN`` order."""
    return Relation(
        id=row[0],
        source_id=row[1],
        target_id=row[2],
        predicate=row[3],
        raw_predicate=row[4] or "",
        context=row[5] or "",
        confidence=float(row[6]),
        time_text=row[7],
        timestamp=_time(row[8]),
        time_granularity=row[9],
        chunk_id=row[10],
        namespace=row[11],
        valid_from=_time(row[12]),
        valid_until=_time(row[13]),
        superseded_by=row[14],
        superseded_by_chunk=row[15],
        family=row[16],
    )


def _entity_row(e: Entity, dataset_id: str) -> Record:
    return {
        "id": e.id,
        "name": e.name,
        "normalized_name": e.normalized_name,
        "type": e.type.value,
        "namespace": e.namespace,
        "identifier": e.identifier,
        "description": e.description,
        "aliases": lists.encode_aliases(e.aliases),
        "keys": lists.entity_keys(e),
        "first_seen": _iso(e.first_seen),
        "last_seen": _iso(e.last_seen),
        "dataset_id": dataset_id,
    }


def write_graph(conn: Connection, graph: GraphWrite) -> None:
    """Insert new entities, update changed stored ones, and create everything
    else (``kuzu_bulk``: cost by rows written, not by store size); the chunks
    already exist."""
    ds = graph.dataset_id
    entity_rows = [_entity_row(e, ds) for e in graph.entities]
    new = [r for r in entity_rows if r["id"] in graph.new_entity_ids]
    changed = [r for r in entity_rows if r["id"] not in graph.new_entity_ids]
    if changed:
        execute_rows(
            conn,
            "UNWIND $rows AS r MERGE (e:Entity {id: r.id}) SET e.name = r.name, "
            "e.normalized_name = r.normalized_name, e.type = r.type, e.namespace = r.namespace, "
            "e.identifier = r.identifier, e.description = r.description, e.aliases = r.aliases, "
            "e.keys = r.keys, e.first_seen = r.first_seen, e.last_seen = r.last_seen, "
            "e.dataset_id = r.dataset_id",
            changed,
        )
        # The type of a stored entity can change (CONCEPT -> PLACE): redraw its IS_A edge.
        ids = [r["id"] for r in changed]
        execute_rows(
            conn,
            "UNWIND $ids AS i MATCH (e:Entity {id: i})-[a:IS_A]->() DELETE a",
            ids,
            key="ids",
            size=ID_SLICE,
        )
    if entity_rows:
        conn.execute(
            "UNWIND $types AS t MERGE (:EntityType {id: t})",
            {"types": sorted({r["type"] for r in entity_rows})},
        )
    bulk.copy_rows(conn, "Entity", bulk.ENTITY, new)
    bulk.copy_rows(
        conn, "IS_A", bulk.EDGE, [{"from": r["id"], "to": r["type"]} for r in entity_rows]
    )
    _create_mentions(conn, graph)
    _create_relations(conn, graph)
    _create_events(conn, graph)
    summary_rows = [
        {
            "id": s.id,
            "data_id": s.data_id,
            "dataset_id": s.dataset_id,
            "namespace": s.namespace,
            "text": s.text,
            "method": s.method,
        }
        for s in graph.summaries
    ]
    bulk.copy_rows(conn, "Summary", bulk.SUMMARY, summary_rows)
    bulk.copy_rows(
        conn,
        "MADE_FROM",
        bulk.EDGE,
        [{"from": r["id"], "to": r["data_id"]} for r in summary_rows],
    )


def _create_mentions(conn: Connection, graph: GraphWrite) -> None:
    rows = [
        {
            "from": m.chunk_id,
            "to": m.entity_id,
            "surface": m.surface,
            "start_offset": m.start,
            "end_offset": m.end,
            "count": m.count,
        }
        for m in graph.mentions
    ]
    bulk.copy_rows(conn, "MENTIONS", bulk.MENTION, rows)


def _create_relations(conn: Connection, graph: GraphWrite) -> None:
    rows = [
        {
            "from": r.source_id,
            "to": r.target_id,
            "id": r.id,
            "predicate": r.predicate,
            "raw_predicate": r.raw_predicate,
            "context": r.context,
            "confidence": float(r.confidence),
            "time_text": r.time_text,
            "timestamp": _iso(r.timestamp),
            "granularity": r.time_granularity,
            "chunk_id": r.chunk_id,
            "data_id": graph.chunk_data.get(r.chunk_id),
            "dataset_id": graph.dataset_id,
            **validity.validity_row(r),
        }
        for r in graph.relations
    ]
    bulk.copy_rows(conn, "RELATES", bulk.RELATES, rows)


def _create_events(conn: Connection, graph: GraphWrite) -> None:
    rows = [
        {
            "id": e.id,
            "text": e.text,
            "time": _iso(e.time),
            "time_text": e.time_text,
            "granularity": e.time_granularity,
            "chunk_id": e.chunk_id,
            "data_id": graph.chunk_data.get(e.chunk_id),
            "dataset_id": graph.dataset_id,
            "namespace": e.namespace,
            "valid_from": _iso(e.valid_from),
        }
        for e in graph.events
    ]
    bulk.copy_rows(conn, "Event", bulk.EVENT, rows)
    bulk.copy_rows(
        conn, "EVENT_IN", bulk.EDGE, [{"from": r["id"], "to": r["chunk_id"]} for r in rows]
    )
    links = [{"from": e.id, "to": eid} for e in graph.events for eid in e.entity_ids]
    bulk.copy_rows(conn, "EVENT_OF", bulk.EDGE, links)


def delete_data_graph(conn: Connection, data_ids: list[str]) -> list[str]:
    """Delete the graph elements that data items' chunks support, and the items'
    summaries; return the entities those chunks mentioned (candidates for
    ``delete_orphan_entities`` once the transaction's own writes are done)."""
    params: dict[str, object] = {"ids": data_ids}
    mentioned = conn.execute(
        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE c.data_id IN $ids RETURN DISTINCT e.id",
        params,
    )
    conn.execute("MATCH ()-[r:RELATES]->() WHERE r.data_id IN $ids DELETE r", params)
    conn.execute("MATCH (v:Event) WHERE v.data_id IN $ids DETACH DELETE v", params)
    conn.execute("MATCH (s:Summary) WHERE s.data_id IN $ids DETACH DELETE s", params)
    return [row[0] for row in mentioned.get_all()]


def orphan_entities(conn: Connection, entity_ids: Iterable[str]) -> set[str]:
    """Those of ``entity_ids`` that no chunk mentions (now)."""
    ids = sorted(set(entity_ids))
    rows = execute_rows(
        conn,
        "UNWIND $ids AS i MATCH (e:Entity {id: i}) "
        "WHERE NOT EXISTS { MATCH (:Chunk)-[:MENTIONS]->(e) } RETURN e.id",
        ids,
        key="ids",
        size=ID_SLICE,
    )
    return {row[0] for row in rows}


def delete_orphan_entities(conn: Connection, entity_ids: Iterable[str]) -> list[str]:
    """Delete those of ``entity_ids`` that no chunk mentions; return their ids."""
    ids = sorted(set(entity_ids))
    if not ids:
        return []
    rows = execute_rows(
        conn,
        "UNWIND $ids AS i MATCH (e:Entity {id: i}) "
        "WHERE NOT EXISTS { MATCH (:Chunk)-[:MENTIONS]->(e) } DETACH DELETE e RETURN e.id",
        ids,
        key="ids",
        size=ID_SLICE,
    )
    return [row[0] for row in rows]
