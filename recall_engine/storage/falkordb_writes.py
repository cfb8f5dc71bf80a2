"""One ingest (or one deletion) as one FalkorDB query: its Cypher and its parameters.

FalkorDB has no multi-statement transactions, but it runs each query as a unit:
under the graph's write lock (no reader sees part of it), and with an undo log
(a query that fails part-way, on a unique key or a bad value, leaves nothing).
So everything one ``write_ingest`` changes goes into a single query: the
replaced items' deletion, the new datasets, items, chunks and graph, and last
the removal of entities nothing mentions any more, whose ids the query returns
(one row, one list: an aggregate, so that the query always runs to its end).

Each step is a unit subquery (``CALL { UNWIND $rows AS r ... }``), so that a
step with no rows neither stops the query nor multiplies the rows of the next;
a step whose list is empty is left out of the text. Endpoints are found through
the unique ``id`` indexes (``falkordb_schema``). The Cypher is the openCypher
subset Neo4j 5 accepts too. Every value is a parameter; the text is built from
this module's constants only.

Fenced writes (``fence``): replicas take turns writing a tenant's graph under a
writer lease (``ingest.writer``), but a replica that stalls past its lease (a
pause, a swapped-out process) can still send a write it prepared before. So the
graph itself names its current writer: a ``WriterFence`` node whose ``holder``
each new lease holder sets (``claim_query``) before it writes, and every fenced
query starts by matching it. A query of a writer that is no longer named there
matches nothing and changes nothing, and its row says so (``passed`` 0 or no
row), all under the one query's write lock: no window between check and write.
The node holds a digest of the holder id, not the id (host and process).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recall_engine.core.cells import Cell
from recall_engine.core.graph import Entity, Event, Mention, Relation, lookup_keys
from recall_engine.storage import falkordb_schema as fs
from recall_engine.storage.graph_records import GraphWrite, SummaryRecord
from recall_engine.storage.records import ChunkRecord, DataItemRecord

FENCE = "WriterFence"
"""The label of a graph's one fence node (``id`` 0): never a data label."""


def fence_token(holder: str) -> str:
    """What the fence node records of a writer: a digest of its holder id (which
    names a host and a process, not for a tenant's Cypher reads to see)."""
    return hashlib.sha256(holder.encode()).hexdigest()[:32]


def claim_query(holder: str) -> tuple[str, dict[str, object]]:
    """The query that names ``holder`` the graph's writer: from then on only its
    fenced writes land."""
    text = f"MERGE (w:{FENCE} {{id: 0}}) SET w.holder = $writer"
    return text, {"writer": fence_token(holder)}


@dataclass
class WriteQuery:
    """A query under construction: its steps in order and their parameters.

    ``writer``: the holder whose fenced query this is (module docstring); None
    writes unfenced (a graph no replicas share).
    """

    writer: str | None = None
    steps: list[str] = field(default_factory=list)
    params: dict[str, object] = field(default_factory=dict)

    def step(self, name: str, rows: Sequence[Cell], body: str) -> None:
        """``CALL { UNWIND $name AS r <body> }`` when there are rows."""
        if rows:
            self.params[name] = list(rows)
            self.steps.append(f"CALL {{ UNWIND ${name} AS r {body} }}")

    def text(self, *, removes: bool) -> str:
        """The whole query. With ``removes``, it starts by collecting the entities
        the ``$replace`` items' chunks mention and ends by deleting those that no
        chunk mentions any more. Its one row is the list of the entities it
        removed and ``passed``, 0 (or no row) when the fence refused it."""
        if self.writer is None:
            fence = "WITH 0 AS fence"
        else:
            self.params["writer"] = fence_token(self.writer)
            fence = f"MATCH (w:{FENCE} {{id: 0}}) WHERE w.holder = $writer WITH w AS fence"
        # The fence is a grouping key of the collect: no fence row, no row after it.
        head = (
            "UNWIND $replace AS i OPTIONAL MATCH (:Chunk {data_id: i})-[:MENTIONS]->(e:Entity) "
            "WITH fence, collect(DISTINCT e.id) AS touched"
            if removes
            else ""
        )
        # One null beside the touched ids: a query that ran counts a row even when
        # it touched no entity, so ``passed`` tells it from one the fence refused.
        tail = (
            "WITH touched UNWIND touched + [null] AS i OPTIONAL MATCH (e:Entity {id: i}) "
            "WHERE NOT (:Chunk)-[:MENTIONS]->(e) "
            "WITH e, e.id AS id DETACH DELETE e RETURN collect(id) AS removed, count(*) AS passed"
            if removes
            else "RETURN [] AS removed, 1 AS passed"
        )
        return " ".join(part for part in (fence, head, *self.steps, tail) if part)


def removal(query: WriteQuery, data_ids: Sequence[str]) -> None:
    """Steps that delete data items, their chunks, and the relations, events and
    summaries they support (entities: the query's tail)."""
    if not data_ids:
        return
    query.params["replace"] = list(dict.fromkeys(data_ids))
    for body in (
        "MATCH ()-[x:RELATES {data_id: r}]->() DELETE x",
        "MATCH (x:Event {data_id: r}) DETACH DELETE x",
        "MATCH (x:Summary {data_id: r}) DETACH DELETE x",
        "MATCH (x:Chunk {data_id: r}) DETACH DELETE x",
        "MATCH (x:Document {id: r}) DETACH DELETE x",
        "MATCH (x:ExtractionFailure {data_id: r}) DELETE x",
    ):
        query.steps.append(f"CALL {{ UNWIND $replace AS r {body} }}")


def ingest_query(
    datasets: Sequence[tuple[str, str, str]],
    items: Sequence[DataItemRecord],
    chunks: Sequence[ChunkRecord],
    replace_data_ids: Sequence[str],
    graph: GraphWrite | None,
    *,
    writer: str | None = None,
) -> tuple[str, dict[str, object]]:
    """The query (text, parameters) of one ``GraphStore.write_ingest``, fenced
    for ``writer`` when given."""
    query = WriteQuery(writer)
    removal(query, replace_data_ids)
    query.step(
        "datasets",
        [{"id": d[0], "name": d[1], "created_at": d[2]} for d in datasets],
        "MERGE (d:Dataset {id: r.id}) ON CREATE SET d.name = r.name, d.created_at = r.created_at",
    )
    query.step(
        "documents",
        [_document(i) for i in items],
        f"CREATE (d:Document {fs.property_map('r', fs.DOCUMENT.names)}) "
        "WITH d, r MATCH (s:Dataset {id: r.dataset_id}) CREATE (s)-[:HAS_DATA]->(d)",
    )
    query.step(
        "failures",
        [
            {"data_id": i.id, "reason": i.extraction_failure}
            for i in items
            if i.extraction_failure is not None
        ],
        f"CREATE (:ExtractionFailure {fs.property_map('r', fs.EXTRACTION_FAILURE.names)})",
    )
    query.step(
        "chunks",
        [_chunk(c) for c in chunks],
        f"CREATE (c:Chunk {fs.property_map('r', fs.CHUNK.names)}) "
        "WITH c, r MATCH (d:Document {id: r.data_id}) CREATE (d)-[:CONTAINS]->(c)",
    )
    if graph is not None:
        _graph_steps(query, graph)
    return query.text(removes=bool(replace_data_ids)), query.params


def delete_query(
    data_ids: Sequence[str], *, writer: str | None = None
) -> tuple[str, dict[str, object]]:
    """The query (text, parameters) of one ``GraphStore.delete_data_items``."""
    query = WriteQuery(writer)
    removal(query, data_ids)
    return query.text(removes=bool(data_ids)), query.params


def dataset_deletion_query(
    dataset_id: str, *, writer: str | None = None
) -> tuple[str, dict[str, object]]:
    """The query (text, parameters) of one ``GraphStore.delete_dataset``."""
    query = WriteQuery(writer, params={"dataset": dataset_id})
    query.steps.append("CALL { MATCH (d:Dataset {id: $dataset}) DETACH DELETE d }")
    return query.text(removes=False), query.params


def validity_query(
    changes: Sequence[Cell], *, writer: str | None = None
) -> tuple[str, dict[str, object]]:
    """The query (text, parameters) that writes facts' recomputed validity."""
    query = WriteQuery(writer)
    query.step(
        "changes",
        changes,
        "MATCH ()-[x:RELATES {id: r.id}]->() SET x.valid_until = r.valid_until, "
        "x.superseded_by = r.superseded_by, x.superseded_by_chunk = r.superseded_by_chunk",
    )
    return query.text(removes=False), query.params


def _graph_steps(query: WriteQuery, graph: GraphWrite) -> None:
    entities = [_entity(e, graph.dataset_id) for e in graph.entities]
    # Stored entities are updated in place (MERGE on the unique id); the type of
    # one can change (CONCEPT -> PLACE), so every IS_A edge of these is redrawn.
    query.step(
        "entities",
        entities,
        "MERGE (e:Entity {id: r.id}) SET "
        + ", ".join(f"e.{name} = r.{name}" for name in fs.ENTITY.names if name != "id"),
    )
    query.step(
        "entity_ids", [e["id"] for e in entities], "MATCH (:Entity {id: r})-[a:IS_A]->() DELETE a"
    )
    query.step("types", sorted({e["type"] for e in entities}), "MERGE (:EntityType {id: r})")
    query.step(
        "is_a",
        [{"id": e["id"], "type": e["type"]} for e in entities],
        "MATCH (e:Entity {id: r.id}), (t:EntityType {id: r.type}) CREATE (e)-[:IS_A]->(t)",
    )
    query.step(
        "mentions",
        [_mention(m) for m in graph.mentions],
        "MATCH (c:Chunk {id: r.chunk_id}), (e:Entity {id: r.entity_id}) "
        f"CREATE (c)-[:MENTIONS {fs.property_map('r', fs.MENTIONS.names)}]->(e)",
    )
    query.step(
        "relations",
        [_relation(r, graph) for r in graph.relations],
        "MATCH (a:Entity {id: r.source}), (b:Entity {id: r.target}) "
        f"CREATE (a)-[:RELATES {fs.property_map('r', fs.RELATES.names)}]->(b)",
    )
    query.step(
        "events",
        [_event(e, graph) for e in graph.events],
        f"CREATE (v:Event {fs.property_map('r', fs.EVENT.names)}) "
        "WITH v, r MATCH (c:Chunk {id: r.chunk_id}) CREATE (v)-[:EVENT_IN]->(c)",
    )
    query.step(
        "event_links",
        [{"event": e.id, "entity": eid} for e in graph.events for eid in e.entity_ids],
        "MATCH (v:Event {id: r.event}), (e:Entity {id: r.entity}) CREATE (v)-[:EVENT_OF]->(e)",
    )
    query.step(
        "summaries",
        [_summary(s) for s in graph.summaries],
        f"CREATE (s:Summary {fs.property_map('r', fs.SUMMARY.names)}) "
        "WITH s, r MATCH (d:Document {id: r.data_id}) CREATE (s)-[:MADE_FROM]->(d)",
    )


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _document(i: DataItemRecord) -> dict[str, object]:
    return {
        "id": i.id, "dataset_id": i.dataset_id, "dataset_name": i.dataset_name, "name": i.name,
        "kind": i.kind, "content_hash": i.content_hash, "source_id": i.source_id,
        "metadata": i.metadata_json, "created_at": i.created_at, "chunk_count": i.chunk_count,
    }  # fmt: skip


def _chunk(c: ChunkRecord) -> dict[str, object]:
    return {
        "id": c.id, "data_id": c.data_id, "dataset_id": c.dataset_id,
        "chunk_index": c.chunk_index, "text": c.text, "message_ids": list(c.message_ids),
        "speaker": c.speaker, "timestamp": c.timestamp,
    }  # fmt: skip


def _entity(e: Entity, dataset_id: str) -> dict[str, object]:
    return {
        "id": e.id, "name": e.name, "normalized_name": e.normalized_name, "type": e.type.value,
        "namespace": e.namespace, "identifier": e.identifier, "description": e.description,
        "aliases": list(e.aliases), "keys": sorted(lookup_keys(e)),
        "first_seen": _iso(e.first_seen), "last_seen": _iso(e.last_seen),
        "dataset_id": dataset_id,
    }  # fmt: skip


def _mention(m: Mention) -> dict[str, object]:
    return {
        "chunk_id": m.chunk_id, "entity_id": m.entity_id, "surface": m.surface,
        "start_offset": m.start, "end_offset": m.end, "count": m.count,
    }  # fmt: skip


def _relation(r: Relation, graph: GraphWrite) -> dict[str, object]:
    return {
        "source": r.source_id, "target": r.target_id, "id": r.id, "predicate": r.predicate,
        "raw_predicate": r.raw_predicate, "context": r.context,
        "confidence": float(r.confidence), "time_text": r.time_text,
        "timestamp": _iso(r.timestamp), "granularity": r.time_granularity,
        "chunk_id": r.chunk_id, "data_id": graph.chunk_data.get(r.chunk_id),
        "dataset_id": graph.dataset_id, "valid_from": _iso(r.valid_from),
        "valid_until": _iso(r.valid_until), "superseded_by": r.superseded_by,
        "superseded_by_chunk": r.superseded_by_chunk, "family": r.family,
    }  # fmt: skip


def _event(e: Event, graph: GraphWrite) -> dict[str, object]:
    return {
        "id": e.id, "text": e.text, "time": _iso(e.time), "time_text": e.time_text,
        "granularity": e.time_granularity, "chunk_id": e.chunk_id,
        "data_id": graph.chunk_data.get(e.chunk_id), "dataset_id": graph.dataset_id,
        "namespace": e.namespace, "valid_from": _iso(e.valid_from),
    }  # fmt: skip


def _summary(s: SummaryRecord) -> dict[str, object]:
    return {
        "id": s.id, "data_id": s.data_id, "dataset_id": s.dataset_id, "namespace": s.namespace,
        "text": s.text, "method": s.method,
    }  # fmt: skip
