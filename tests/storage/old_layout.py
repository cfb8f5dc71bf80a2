"""A data dir as recall-engine wrote it on 2026-12-01 (commit c5a87e2), built with
kuzu and lancedb directly, so that the upgrade tests need no old checkout.

The schema below is that version's, copied from its ``storage/kuzu_graph.py``,
``storage/kuzu_graph_elements.py``, ``storage/lance_vectors.py`` and
``storage/lance_graph.py``: entity aliases and keys as ``STRING[]``, facts with no
validity columns, events with no ``valid_from``, a chunks table with no sentence
vectors. The rows (``old_layout_2026_12_01.json``) are those that version wrote for
the texts in ``TEXTS`` (our own), dumped from a data dir it made; vectors are not
kept there: each row gets the given embedder's vector of its ``text``, so an engine
with that embedder can search them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from recall_engine.embedding.embedder import Embedder

ROWS = Path(__file__).with_name("old_layout_2026_12_01.json")

TEXTS = {
    "notes": "Imre Takacs founded Kestrel Labs in Tallinn in 2019.",
    "chat-ann": (
        ("c1", "Ann", "I live in Lyon.", "2023-01-10T09:00:00"),
        ("c2", "Ann", "I moved to Paris last month.", "2024-03-05T18:30:00"),
    ),
    "work": "Always run the linter before merging a pull request.",  # node_set coding_agent_rules
}
"""What was remembered, one dataset each (the conversation as (id, speaker, text, time))."""

KUZU_SCHEMA = [
    "CREATE NODE TABLE IF NOT EXISTS Dataset("
    "id STRING PRIMARY KEY, name STRING, created_at STRING)",
    "CREATE NODE TABLE IF NOT EXISTS Document("
    "id STRING PRIMARY KEY, dataset_id STRING, dataset_name STRING, name STRING, kind STRING, "
    "content_hash STRING, source_id STRING, metadata STRING, created_at STRING, "
    "chunk_count INT64)",
    "CREATE NODE TABLE IF NOT EXISTS Chunk("
    "id STRING PRIMARY KEY, data_id STRING, dataset_id STRING, chunk_index INT64, "
    "text STRING, message_ids STRING[], speaker STRING, timestamp STRING)",
    "CREATE NODE TABLE IF NOT EXISTS ExtractionFailure(data_id STRING PRIMARY KEY, reason STRING)",
    "CREATE REL TABLE IF NOT EXISTS HAS_DATA(FROM Dataset TO Document)",
    "CREATE REL TABLE IF NOT EXISTS CONTAINS(FROM Document TO Chunk)",
    "CREATE NODE TABLE IF NOT EXISTS Entity("
    "id STRING PRIMARY KEY, name STRING, normalized_name STRING, type STRING, "
    "namespace STRING, identifier STRING, description STRING, aliases STRING[], "
    "keys STRING[], first_seen STRING, last_seen STRING, dataset_id STRING)",
    "CREATE NODE TABLE IF NOT EXISTS EntityType(id STRING PRIMARY KEY)",
    "CREATE NODE TABLE IF NOT EXISTS Event("
    "id STRING PRIMARY KEY, text STRING, time STRING, time_text STRING, granularity STRING, "
    "chunk_id STRING, data_id STRING, dataset_id STRING, namespace STRING)",
    "CREATE NODE TABLE IF NOT EXISTS Summary("
    "id STRING PRIMARY KEY, data_id STRING, dataset_id STRING, namespace STRING, "
    "text STRING, method STRING)",
    "CREATE REL TABLE IF NOT EXISTS IS_A(FROM Entity TO EntityType)",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Chunk TO Entity, surface STRING, "
    "start_offset INT64, end_offset INT64, count INT64)",
    "CREATE REL TABLE IF NOT EXISTS RELATES(FROM Entity TO Entity, id STRING, "
    "predicate STRING, raw_predicate STRING, context STRING, confidence DOUBLE, "
    "time_text STRING, timestamp STRING, granularity STRING, chunk_id STRING, "
    "data_id STRING, dataset_id STRING)",
    "CREATE REL TABLE IF NOT EXISTS EVENT_OF(FROM Event TO Entity)",
    "CREATE REL TABLE IF NOT EXISTS EVENT_IN(FROM Event TO Chunk)",
    "CREATE REL TABLE IF NOT EXISTS MADE_FROM(FROM Summary TO Document)",
]

_KUZU_TYPES = {
    "STRING": pa.string(),
    "INT64": pa.int64(),
    "DOUBLE": pa.float64(),
    "STRING[]": pa.list_(pa.string()),
}


def chunk_schema(dimension: int) -> pa.Schema:
    """The chunks table as that version made it (no ``sentence_vectors``)."""
    return pa.schema(
        [
            pa.field("id", pa.string()),
            pa.field("data_id", pa.string()),
            pa.field("dataset_id", pa.string()),
            pa.field("dataset_name", pa.string()),
            pa.field("chunk_index", pa.int32()),
            pa.field("text", pa.string()),
            pa.field("document_name", pa.string()),
            pa.field("metadata_json", pa.string()),
            pa.field("message_ids", pa.list_(pa.string())),
            pa.field("speaker", pa.string()),
            pa.field("timestamp", pa.string()),
            pa.field("created_at", pa.string()),
            pa.field("tokens", pa.list_(pa.string())),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


def graph_schema(columns: list[str], dimension: int) -> pa.Schema:
    """A graph vector table as that version made it: string columns and a vector."""
    return pa.schema(
        [pa.field(c, pa.string()) for c in columns]
        + [pa.field("vector", pa.list_(pa.float32(), dimension))]
    )


def build(data_dir: Path, embedder: Embedder, tenant: str = "default") -> Path:
    """Write the old data dir of ``tenant`` under ``data_dir``; return the tenant's folder."""
    rows = json.loads(ROWS.read_text(encoding="utf-8"))
    root = data_dir / "tenants" / tenant
    root.mkdir(parents=True)
    _kuzu(root / "graph.kuzu", rows["nodes"], rows["rels"])
    write_vectors_and_meta(root, embedder, tenant)
    return root


def write_vectors_and_meta(root: Path, embedder: Embedder, tenant: str, **meta: str) -> None:
    """The old LanceDB tables and ``store.json`` (with ``meta`` added) under ``root``."""
    rows = json.loads(ROWS.read_text(encoding="utf-8"))
    _lance(root / "vectors", rows["lance"], embedder)
    written = {
        "embedding_model": embedder.model_id,
        "dimension": embedder.dimension,
        "schema_version": 1,
        "tenant_id": tenant,
        "created_at": datetime(2026, 12, 1, tzinfo=UTC).isoformat(),
        **meta,
    }
    (root / "store.json").write_text(json.dumps(written, indent=2), encoding="utf-8")


def _kuzu(path: Path, nodes: dict, rels: dict) -> None:
    import kuzu

    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    for statement in KUZU_SCHEMA:
        conn.execute(statement)
    ends = (("from", pa.string()), ("to", pa.string()))
    for tables, keys in ((nodes, ()), (rels, ends)):
        for table, found in tables.items():
            if found["rows"]:
                conn.execute(f"COPY {table} FROM $t", {"t": _arrow(conn, table, found, keys)})
    conn.close()
    db.close()


def _arrow(conn, table: str, found: dict, ends: tuple) -> pa.Table:
    """The rows of one table as Arrow, typed as its (old) Kuzu columns (a
    relationship's rows start with the ids of its two ends)."""
    types = dict(conn.execute(f"CALL table_info('{table}') RETURN name, type").get_all())
    fields = [pa.field(n, t) for n, t in ends]
    fields += [pa.field(c, _KUZU_TYPES[types[c]]) for c in found["columns"]]
    columns = zip(*found["rows"], strict=True)
    arrays = [pa.array(list(c), f.type) for c, f in zip(columns, fields, strict=True)]
    return pa.table(arrays, schema=pa.schema(fields))


def _lance(path: Path, tables: dict, embedder: Embedder) -> None:
    import lancedb

    db = lancedb.connect(str(path))
    for name, found in tables.items():
        columns = found["columns"]
        schema = (
            chunk_schema(embedder.dimension)
            if name == "chunks"
            else graph_schema(columns, embedder.dimension)
        )
        texts = [row[columns.index("text")] for row in found["rows"]]
        vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
        data = {c: [row[i] for row in found["rows"]] for i, c in enumerate(columns)}
        data["vector"] = list(vectors)
        db.create_table(name, data=pa.table(data, schema=schema))
