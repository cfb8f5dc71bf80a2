"""Typed records that ``GraphStore``'s reads return to the read API.

The read side (``recall_engine.read``) asks the graph for relations, entities,
mention links and the schema through these records, never through query text
or positional rows, so a second graph backend implements the same methods in
its own dialect (``kuzu_reads`` holds Kuzu's).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from recall_engine.core.cells import Cell


@dataclass(frozen=True)
class EdgeRecord:
    """One stored relation with the name and type of both ends."""

    id: str
    source_id: str
    source_name: str
    source_type: str
    target_id: str
    target_name: str
    target_type: str
    predicate: str
    raw_predicate: str | None
    context: str
    confidence: float | None
    time_text: str | None
    timestamp: str | None
    """ISO 8601 as stored, or None."""
    chunk_id: str | None
    data_id: str | None
    dataset_id: str
    valid_from: str | None = None
    """When it was stated (ISO 8601, naive UTC), or None (stored before facts had time)."""
    valid_until: str | None = None
    """When a later statement replaced it, or None while it holds."""
    superseded_by: str | None = None
    superseded_by_chunk: str | None = None
    family: str | None = None
    """The aspect it holds one value of (home, job, ...), or None."""


@dataclass(frozen=True)
class EntityRecord:
    """One stored entity as the read API shows it, with its dataset."""

    id: str
    name: str
    type: str
    description: str
    aliases: tuple[str, ...]
    dataset_id: str


@dataclass(frozen=True)
class MentionLink:
    """A chunk mentions an entity (of ``dataset_id``)."""

    chunk_id: str
    entity_id: str
    dataset_id: str


@dataclass(frozen=True)
class DocumentRecord:
    """One stored data item (document, file, conversation) as the graph holds it."""

    id: str
    dataset_id: str
    dataset_name: str
    name: str
    kind: str
    content_hash: str
    source_id: str | None
    created_at: str
    chunk_count: int
    metadata: dict[str, object] = field(default_factory=dict)
    """The item's metadata as written (decoded from its stored JSON)."""


@dataclass(frozen=True)
class TableSchema:
    """One node or relationship table of the graph, for a text-to-Cypher prompt."""

    name: str
    kind: Literal["NODE", "REL"]
    properties: tuple[tuple[str, str], ...]
    """(name, type) of each property, in table order."""
    connections: tuple[tuple[str, str], ...] = ()
    """For a relationship table: the (from, to) node tables it joins."""

    def describe(self) -> str:
        """One line: ``node (:Name {p TYPE, ...})`` or ``relationship (:A)-[:R]->(:B) {...}``."""
        fields = ", ".join(f"{name} {kind}" for name, kind in self.properties)
        if self.kind == "REL":
            pairs = ", ".join(f"(:{a})-[:{self.name}]->(:{b})" for a, b in self.connections)
            return f"relationship {pairs} {{{fields}}}"
        return f"node (:{self.name} {{{fields}}})"


# The columns both backends return an edge in (``a``/``b`` its ends, ``r`` the
# relation: openCypher that Kuzu and FalkorDB accept alike), and their decoders.
EDGE_COLUMNS = (
    "r.id, a.id, a.name, a.type, b.id, b.name, b.type, r.predicate, r.raw_predicate, "
    "r.context, r.confidence, r.time_text, r.timestamp, r.chunk_id, r.data_id, r.dataset_id, "
    "r.valid_from, r.valid_until, r.superseded_by, r.superseded_by_chunk, r.family"
)
ENTITY_RECORD_COLUMNS = "e.id, e.name, e.type, e.description, e.aliases, e.dataset_id"
DOCUMENT_COLUMNS = (
    "d.id, d.dataset_id, d.dataset_name, d.name, d.kind, d.content_hash, d.source_id, "
    "d.created_at, d.chunk_count, d.metadata"
)


def edge_from_row(row: Sequence[Cell]) -> EdgeRecord:
    """An ``EdgeRecord`` from a row in ``EDGE_COLUMNS`` order."""
    (rid, aid, aname, atype, bid, bname, btype, pred, raw, context, conf, time_text,
     stamp, chunk_id, data_id, dataset_id, valid_from, valid_until, superseded_by,
     superseded_by_chunk, family) = row  # fmt: skip
    return EdgeRecord(
        id=rid, source_id=aid, source_name=aname, source_type=atype, target_id=bid,
        target_name=bname, target_type=btype, predicate=pred, raw_predicate=raw,
        context=context or "", confidence=conf, time_text=time_text, timestamp=stamp,
        chunk_id=chunk_id, data_id=data_id, dataset_id=dataset_id, valid_from=valid_from,
        valid_until=valid_until, superseded_by=superseded_by,
        superseded_by_chunk=superseded_by_chunk, family=family,
    )  # fmt: skip


def entity_record_from_row(row: Sequence[Cell]) -> EntityRecord:
    """An ``EntityRecord`` from a row in ``ENTITY_RECORD_COLUMNS`` order."""
    return EntityRecord(
        id=row[0],
        name=row[1],
        type=row[2],
        description=row[3] or "",
        aliases=aliases_from(row[4]),
        dataset_id=row[5],
    )


def aliases_from(value: object) -> tuple[str, ...]:
    """Aliases as a backend stores them: a list (FalkorDB), a JSON array (Kuzu,
    ``kuzu_entity_lists``) or nothing."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value else []
        except ValueError:  # written by this package; anything else is no alias
            return ()
    return tuple(str(a) for a in value) if isinstance(value, list) else ()


def document_from_row(row: Sequence[Cell]) -> DocumentRecord:
    """A ``DocumentRecord`` from a row in ``DOCUMENT_COLUMNS`` order."""
    did, dataset_id, dataset_name, name, kind, content_hash, source_id, created, count, meta = row
    try:
        metadata = json.loads(meta) if isinstance(meta, str) and meta else {}
    except ValueError:  # written by this package as JSON; an unreadable value is no metadata
        metadata = {}
    return DocumentRecord(
        id=did,
        dataset_id=dataset_id,
        dataset_name=dataset_name or "",
        name=name or "",
        kind=kind or "",
        content_hash=content_hash or "",
        source_id=source_id,
        created_at=str(created or ""),
        chunk_count=int(count or 0),
        metadata=metadata if isinstance(metadata, dict) else {},
    )
