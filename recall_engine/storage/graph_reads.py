"""Typed records that ``GraphStore``'s reads return to the read API.

The read side (``recall_engine.read``) asks the graph for relations, entities,
mention links and the schema through these records, never through query text
or positional rows, so a second graph backend implements the same methods in
its own dialect (``kuzu_reads`` holds Kuzu's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


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
