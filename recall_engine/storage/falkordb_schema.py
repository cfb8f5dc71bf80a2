"""The graph model of a tenant on FalkorDB, as data: labels, relationship types,
their properties, and the indexes and unique keys the store keeps on them.

FalkorDB is schema-free, so this module is the schema: the store writes exactly
these properties, ``graph_schema`` describes them (the text-to-Cypher prompt sees
the same tables and types as on Kuzu, ``kuzu_migrate.SCHEMA``), and the write
queries' property maps are built from them. Names here are constants; no user
text ever becomes a label, a type or a property name.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall_engine.storage.graph_reads import TableSchema

# Property types, named as Kuzu names them (the schema text reads the same on both).
S, N, F, L = "STRING", "INT64", "DOUBLE", "STRING[]"


@dataclass(frozen=True)
class Label:
    """A node label: its properties (name, type) and which of them are looked up."""

    name: str
    properties: tuple[tuple[str, str], ...]
    key: str | None = "id"
    """Unique per tenant (an index and a unique constraint), like a Kuzu primary key."""
    indexed: tuple[str, ...] = ()
    """Further properties with a range index (a list property: each of its items)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.properties)


@dataclass(frozen=True)
class RelType:
    """A relationship type, the (from, to) labels it joins and its properties."""

    name: str
    ends: tuple[str, str]
    properties: tuple[tuple[str, str], ...] = ()
    indexed: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.properties)


DATASET = Label("Dataset", (("id", S), ("name", S), ("created_at", S)))
DOCUMENT = Label(
    "Document",
    (("id", S), ("dataset_id", S), ("dataset_name", S), ("name", S), ("kind", S),
     ("content_hash", S), ("source_id", S), ("metadata", S), ("created_at", S),
     ("chunk_count", N)),
    indexed=("dataset_id", "source_id"),
)  # fmt: skip
CHUNK = Label(
    "Chunk",
    (("id", S), ("data_id", S), ("dataset_id", S), ("chunk_index", N), ("text", S),
     ("message_ids", L), ("speaker", S), ("timestamp", S)),
    indexed=("data_id",),
)  # fmt: skip
EXTRACTION_FAILURE = Label("ExtractionFailure", (("data_id", S), ("reason", S)), key="data_id")
ENTITY = Label(
    "Entity",
    (("id", S), ("name", S), ("normalized_name", S), ("type", S), ("namespace", S),
     ("identifier", S), ("description", S), ("aliases", L), ("keys", L), ("first_seen", S),
     ("last_seen", S), ("dataset_id", S)),
    indexed=("dataset_id", "keys"),
)  # fmt: skip
ENTITY_TYPE = Label("EntityType", (("id", S),))
EVENT = Label(
    "Event",
    (("id", S), ("text", S), ("time", S), ("time_text", S), ("granularity", S),
     ("chunk_id", S), ("data_id", S), ("dataset_id", S), ("namespace", S), ("valid_from", S)),
    indexed=("data_id",),
)  # fmt: skip
SUMMARY = Label(
    "Summary",
    (("id", S), ("data_id", S), ("dataset_id", S), ("namespace", S), ("text", S),
     ("method", S)),
    indexed=("data_id",),
)  # fmt: skip
LABELS = (DATASET, DOCUMENT, CHUNK, EXTRACTION_FAILURE, ENTITY, ENTITY_TYPE, EVENT, SUMMARY)

MENTIONS = RelType(
    "MENTIONS",
    ("Chunk", "Entity"),
    (("surface", S), ("start_offset", N), ("end_offset", N), ("count", N)),
)
RELATES = RelType(
    "RELATES",
    ("Entity", "Entity"),
    (("id", S), ("predicate", S), ("raw_predicate", S), ("context", S), ("confidence", F),
     ("time_text", S), ("timestamp", S), ("granularity", S), ("chunk_id", S), ("data_id", S),
     ("dataset_id", S), ("valid_from", S), ("valid_until", S), ("superseded_by", S),
     ("superseded_by_chunk", S), ("family", S)),
    indexed=("id", "data_id", "chunk_id"),
)  # fmt: skip
REL_TYPES = (
    RelType("HAS_DATA", ("Dataset", "Document")),
    RelType("CONTAINS", ("Document", "Chunk")),
    RelType("IS_A", ("Entity", "EntityType")),
    MENTIONS,
    RELATES,
    RelType("EVENT_OF", ("Event", "Entity")),
    RelType("EVENT_IN", ("Event", "Chunk")),
    RelType("MADE_FROM", ("Summary", "Document")),
)


def property_map(var: str, names: tuple[str, ...]) -> str:
    """``{a: var.a, b: var.b}``: a Cypher map of one row's values, for CREATE/SET."""
    return "{" + ", ".join(f"{name}: {var}.{name}" for name in names) + "}"


def index_statements() -> list[tuple[str, str, str]]:
    """(NODE or RELATIONSHIP, label or type, property) of every range index."""
    out = []
    for label in LABELS:
        for prop in ((label.key,) if label.key else ()) + label.indexed:
            out.append(("NODE", label.name, prop))
    for rel in REL_TYPES:
        out += [("RELATIONSHIP", rel.name, prop) for prop in rel.indexed]
    return out


def index_query(kind: str, name: str, prop: str) -> str:
    """The openCypher (Neo4j 5 and FalkorDB) that creates one range index."""
    if kind == "NODE":
        return f"CREATE INDEX FOR (n:{name}) ON (n.{prop})"
    return f"CREATE INDEX FOR ()-[r:{name}]-() ON (r.{prop})"


def tables() -> list[TableSchema]:
    """Every label and relationship type as ``TableSchema``, by name (as Kuzu lists them)."""
    out = [TableSchema(label.name, "NODE", label.properties) for label in LABELS]
    out += [TableSchema(rel.name, "REL", rel.properties, (rel.ends,)) for rel in REL_TYPES]
    return sorted(out, key=lambda table: table.name)
