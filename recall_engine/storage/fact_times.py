"""Times for the facts and events a graph kept from before facts had time: what
to write, worked out the same way on every graph backend (``plan``).

A graph written before facts had time (code before 2026-12-05) holds facts with
no ``valid_from``, ``valid_until`` or ``family`` and events with no
``valid_from``: no such fact is ever superseded, so "where does Ann live now?"
finds every home she ever named, and ``as_of`` cannot date them. ``plan`` gives
them what an ingest gives new ones: each chunk's facts and events go through the
ingest's own ``Stamp`` (graph extraction's ``supersession.stamp``, passed in,
since storage does not import graph extraction), stated when their chunk was (a
message's timestamp, else its item's ``created_at``; a document's chunk at its
place in the document, each fact at its sentence's place in the chunk).

A fact is found by having neither ``valid_from`` nor ``valid_until``, which every
fact an ingest stamps has one of. A fact whose chunk is gone, or whose stored
values cannot be read, keeps no time. Each backend writes the plan its own way,
as one unit, with a mark (``MARK``) that the graph's facts are dated, so that
later opens skip the scan: ``kuzu_fact_times``, ``falkordb_fact_times``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from recall_engine.core.cells import Cell, Record, Row
from recall_engine.core.facts import parse_utc
from recall_engine.core.graph import ChunkExtraction, Entity, EntityType, Event
from recall_engine.storage import kuzu_graph_elements as ge

MARK = "recall-engine: facts dated"
"""What a graph records (a Kuzu table comment, a FalkorDB node) once every fact
and event it holds has its time: set in the same unit as the times it writes, or,
when there was nothing to date, after the scan that found nothing."""


class Stamp(Protocol):
    """Sets each relation's ``valid_from``/``valid_until``/``family`` and each
    event's ``valid_from`` in one chunk's extraction (``supersession.stamp``)."""

    def __call__(
        self, extraction: ChunkExtraction, stated_at: datetime, *, position: int | None = None
    ) -> ChunkExtraction: ...


class Read(Protocol):
    """Runs one of the store's own parameterised read queries; all rows."""

    def __call__(self, query: str, params: dict[str, object] | None = None) -> list[Row]: ...


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


@dataclass(frozen=True)
class DatedFact:
    """A stored fact with the times ``stamp`` gave it."""

    id: str
    source: str
    target: str
    dataset_id: str
    chunk_id: str
    confidence: float
    predicate: str
    valid_from: str | None
    valid_until: str | None
    family: str | None

    def update(self) -> Record:
        """The row that writes its times (``id``, ends, times and ``family``)."""
        return {
            "id": self.id,
            "source": self.source,
            "target": self.target,
            "ds": self.dataset_id,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "family": self.family,
        }

    def validity_row(self) -> Row:
        """The fact as ``kuzu_validity.changed_rows`` reads a stored one (not yet
        superseded by anything)."""
        return [
            self.dataset_id, self.source, self.family, self.id, self.target, self.chunk_id,
            self.valid_from, self.confidence, self.valid_until, None, None, self.predicate,
        ]  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """What dating a graph writes: its undated facts' and events' times."""

    facts: list[DatedFact] = field(default_factory=list)
    events: list[Record] = field(default_factory=list)
    """``{"id", "valid_from"}`` of each event dated."""
    found: int = 0
    """How many undated facts and events the scan found (some may stay undated)."""

    @property
    def left(self) -> int:
        """How many of those keep no time (their chunk is gone, or a value is unreadable)."""
        return self.found - len(self.facts) - len(self.events)

    @property
    def groups(self) -> set[tuple[str, str, str]]:
        """The (dataset, subject, family) groups the dated facts join."""
        return {(f.dataset_id, f.source, f.family) for f in self.facts if f.family}


def plan(read: Read, stamp: Stamp) -> Plan:
    """Scan the graph for undated facts and events and work out their times.

    Args:
        read: runs a read query on the graph (``Read``).
        stamp: graph extraction's ``supersession.stamp``.

    Raises:
        whatever ``read`` raises.
    """
    facts = read(UNDATED_FACTS)
    events = read(UNDATED_EVENTS)
    if not facts and not events:
        return Plan()
    ids = sorted({row[10] for row in facts} | {row[5] for row in events})
    chunks: dict[str, Row] = {}
    for start in range(0, len(ids), ge.ID_SLICE):
        for row in read(CHUNK_TIMES, {"ids": ids[start : start + ge.ID_SLICE]}):
            chunks[row[0]] = row
    dated, dated_events = _stamped(facts, events, chunks, stamp)
    return Plan(dated, dated_events, len(facts) + len(events))


def _stamped(
    facts: Sequence[Row], events: Sequence[Row], chunks: dict[str, Row], stamp: Stamp
) -> tuple[list[DatedFact], list[Record]]:
    """The facts and events that ``stamp`` dated, chunk by chunk."""
    by_chunk: dict[str, tuple[list[Row], list[Row]]] = {}
    for row in facts:
        by_chunk.setdefault(row[10], ([], []))[0].append(row)
    for row in events:
        by_chunk.setdefault(row[5], ([], []))[1].append(row)
    dated: list[DatedFact] = []
    dated_events: list[Record] = []
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
            dated.append(
                DatedFact(
                    id=r.id,
                    source=r.source_id,
                    target=r.target_id,
                    dataset_id=ds[r.id],
                    chunk_id=r.chunk_id,
                    confidence=float(r.confidence),
                    predicate=r.predicate,
                    valid_from=r.valid_from.isoformat() if r.valid_from else None,
                    valid_until=r.valid_until.isoformat() if r.valid_until else None,
                    family=r.family,
                )
            )
        for e in done.events:
            dated_events.append(
                {"id": e.id, "valid_from": e.valid_from.isoformat() if e.valid_from else None}
            )
    return dated, dated_events


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
