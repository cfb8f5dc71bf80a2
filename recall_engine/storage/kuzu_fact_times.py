"""Times for the facts and events a store kept from before facts had time.

A store written before ``kuzu_validity``'s columns existed holds facts with no
``valid_from``, ``valid_until`` or ``family`` (the columns are added empty) and
events with no ``valid_from``: no such fact is ever superseded, so "where does Ann
live now?" finds every home she ever named, and ``as_of`` cannot date them.
``backfill`` gives them, once, what an ingest gives new ones: each chunk's facts
and events go through the ingest's own ``Stamp`` (graph extraction's
``supersession.stamp``, passed in, since storage does not import graph
extraction), stated when their chunk was (a message's timestamp, else its item's
``created_at``; a document's chunk at its place in the document, each fact at its
sentence's place in the chunk), and every (dataset, subject, family) group they
join is recomputed (``kuzu_validity.refresh``).

It writes in one transaction and then checkpoints, so a process killed during it
leaves the facts as they were (``kuzu_wal`` sets the unfinished log aside) and the
next open does it again; so does one that fails. A fact is found by having neither
``valid_from`` nor ``valid_until``, which every fact an ingest stamps has one of.
A fact whose chunk is gone, or whose stored values cannot be read, keeps no time.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from recall_engine.core.cells import Cell, Record, Row
from recall_engine.core.facts import parse_utc
from recall_engine.core.graph import ChunkExtraction, Entity, EntityType, Event
from recall_engine.storage import kuzu_graph_elements as ge
from recall_engine.storage import kuzu_validity as validity

log = logging.getLogger(__name__)


class Stamp(Protocol):
    """Sets each relation's ``valid_from``/``valid_until``/``family`` and each
    event's ``valid_from`` in one chunk's extraction (``supersession.stamp``)."""

    def __call__(
        self, extraction: ChunkExtraction, stated_at: datetime, *, position: int | None = None
    ) -> ChunkExtraction: ...


UNDATED_FACTS = (
    "MATCH (a:Entity)-[r:RELATES]->(b:Entity) "
    "WHERE r.valid_from IS NULL AND r.valid_until IS NULL "
    f"RETURN {ge.RELATION_RETURN}, r.dataset_id, "
    "a.name, a.normalized_name, a.type, b.name, b.normalized_name, b.type"
)
UNDATED_EVENTS = (
    "MATCH (v:Event) WHERE v.valid_from IS NULL "
    "RETURN v.id, v.text, v.time, v.time_text, v.granularity, v.chunk_id, v.namespace"
)
CHUNK_TIMES = (
    "UNWIND $ids AS i MATCH (d:Document)-[:CONTAINS]->(c:Chunk {id: i}) "
    "RETURN c.id, c.timestamp, c.speaker, c.message_ids, c.chunk_index, c.text, d.created_at"
)


def backfill(conn: ge.Connection, stamp: Stamp) -> int:
    """Date the facts and events stored without a time, and recompute the
    validity of the groups those facts join; return how many were dated.

    Raises:
        whatever Kuzu raises; the transaction is then rolled back.
    """
    facts = _rows(conn, UNDATED_FACTS)
    events = _rows(conn, UNDATED_EVENTS)
    if not facts and not events:
        return 0
    ids = sorted({row[10] for row in facts} | {row[5] for row in events})
    chunks = {r[0]: r for r in ge.execute_rows(conn, CHUNK_TIMES, ids, key="ids", size=ge.ID_SLICE)}
    fact_rows, event_rows = _stamped(facts, events, chunks, stamp)
    groups = {(r["ds"], r["source"], r["family"]) for r in fact_rows if r["family"]}
    conn.execute("CHECKPOINT")  # the columns the schema just added are stored first
    conn.execute("BEGIN TRANSACTION")
    try:
        ge.execute_rows(
            conn,
            "UNWIND $rows AS u "
            "MATCH (a:Entity {id: u.source})-[r:RELATES]->(b:Entity {id: u.target}) "
            "WHERE r.id = u.id SET r.valid_from = u.valid_from, "
            "r.valid_until = u.valid_until, r.family = u.family",
            fact_rows,
        )
        ge.execute_rows(
            conn,
            "UNWIND $rows AS u MATCH (v:Event {id: u.id}) SET v.valid_from = u.valid_from",
            event_rows,
        )
        validity.refresh(conn, groups)
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise
    conn.execute("CHECKPOINT")
    left = len(facts) + len(events) - len(fact_rows) - len(event_rows)
    if left:
        log.warning("Kuzu: %d stored fact(s) or event(s) have no readable time; left undated", left)
    return len(fact_rows) + len(event_rows)


def _rows(conn: ge.Connection, query: str) -> list[Row]:
    return [list(r) for r in conn.execute(query).get_all()]


def _stamped(
    facts: Sequence[Row], events: Sequence[Row], chunks: dict[str, Row], stamp: Stamp
) -> tuple[list[Record], list[Record]]:
    """The update rows of the facts and events that ``stamp`` dated, chunk by chunk."""
    by_chunk: dict[str, tuple[list[Row], list[Row]]] = {}
    for row in facts:
        by_chunk.setdefault(row[10], ([], []))[0].append(row)
    for row in events:
        by_chunk.setdefault(row[5], ([], []))[1].append(row)
    fact_rows: list[Record] = []
    event_rows: list[Record] = []
    for chunk_id, (chunk_facts, chunk_events) in by_chunk.items():
        chunk = chunks.get(chunk_id)
        stated = _stated_at(chunk) if chunk is not None else None
        if chunk is None or stated is None:
            continue
        extraction = _extraction(chunk_id, chunk[5] or "", chunk_facts, chunk_events)
        if extraction is None:
            continue
        message = bool(chunk[2] or chunk[3])
        done = stamp(extraction, stated, position=None if message else int(chunk[4] or 0))
        ds = {row[0]: row[17] for row in chunk_facts}
        for r in done.relations:
            fact_rows.append(
                {
                    "id": r.id,
                    "source": r.source_id,
                    "target": r.target_id,
                    "ds": ds[r.id],
                    "valid_from": r.valid_from.isoformat() if r.valid_from else None,
                    "valid_until": r.valid_until.isoformat() if r.valid_until else None,
                    "family": r.family,
                }
            )
        for e in done.events:
            event_rows.append(
                {"id": e.id, "valid_from": e.valid_from.isoformat() if e.valid_from else None}
            )
    return fact_rows, event_rows


def _entity(entity_id: str, cells: Sequence[Cell], namespace: str) -> Entity:
    """A fact's subject or object as ``stamp`` reads it (name and type); a type
    this version does not know reads as ``CONCEPT``."""
    name, normalized, type_ = cells
    known = type_ in EntityType._value2member_map_
    return Entity(
        id=entity_id,
        name=name or "",
        normalized_name=normalized or "",
        type=EntityType(type_) if known else EntityType.CONCEPT,
        namespace=namespace or "",
    )


def _stated_at(chunk: Row) -> datetime | None:
    """When a chunk's words were stated: its message's time, else its item's."""
    for value in (chunk[1], chunk[6]):
        try:
            when = parse_utc(value)
        except (TypeError, ValueError):
            continue
        if when is not None:
            return when
    return None


def _extraction(
    chunk_id: str, text: str, facts: Sequence[Row], events: Sequence[Row]
) -> ChunkExtraction | None:
    """One chunk's stored facts and events as the extraction ``stamp`` takes; None
    when a stored value cannot be read."""
    entities: dict[str, Entity] = {}
    starts: dict[str, int] = {}  # a sentence's place in the chunk orders a document's facts
    relations = []
    try:
        for row in facts:
            relation = ge.relation_from_row([*row[:6], float(row[6] or 0.0), *row[7:17]])
            context = relation.context
            if context not in starts:
                found = text.find(context) if context else -1
                starts[context] = found if found >= 0 else len(text) + len(starts)
            relations.append(relation.model_copy(update={"sentence_start": starts[context]}))
            for at, entity_id in ((18, row[1]), (21, row[2])):
                entities.setdefault(entity_id, _entity(entity_id, row[at : at + 3], row[11]))
        dated = [
            Event(
                id=row[0],
                text=row[1] or "",
                time=datetime.fromisoformat(row[2]),
                time_text=row[3],
                time_granularity=row[4] or "day",
                chunk_id=chunk_id,
                namespace=row[6] or "",
            )
            for row in events
        ]
    except (TypeError, ValueError):  # a value no reader could use: left undated
        return None
    return ChunkExtraction(
        chunk_id=chunk_id,
        namespace=relations[0].namespace if relations else dated[0].namespace,
        entities=tuple(entities.values()),
        relations=tuple(relations),
        events=tuple(dated),
    )
