"""Bulk inserts into Kuzu: ``COPY <table> FROM`` an Arrow table, in slices.

``UNWIND $rows AS r MATCH (a:Entity {id: r.source}) ... CREATE`` makes Kuzu 0.11
join the row list against a scan of the whole node table: each slice costs time
in proportion to what the store already holds, so n rows into a table of N nodes
cost n * N (128 relation rows took 1.1-3.4 s against 32,000 entities, and a 1 MB
document spent most of its ingest there). ``COPY`` finds endpoints and checks
primary keys through the hash index instead, so its cost follows the rows
written. It runs inside the caller's transaction: a failure in any slice rolls
back every earlier one, like the rest of the ingest.

Rows are given as dicts; the column list (name, Kuzu type) fixes the Arrow
schema, so an all-null column never gets a guessed type. A relationship table's
first two columns are ``from`` and ``to``: the primary keys of its endpoints.
Table names come from this package's constants, never from user text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import pyarrow as pa

COPY_SLICE = 2048
"""Most rows one COPY carries: Kuzu reads the Arrow table with the GIL held for
a time that grows with it (~40 ms at 4,096 rows on a loaded 2-core machine)."""

_ARROW_TYPES = {
    "STRING": pa.string(),
    "INT64": pa.int64(),
    "DOUBLE": pa.float64(),
    "STRING[]": pa.list_(pa.string()),
}


class Connection(Protocol):
    def execute(self, query: str, params: dict[str, object] | None = None) -> object: ...


def schema(columns: Sequence[tuple[str, str]]) -> pa.Schema:
    """The Arrow schema of ``(name, Kuzu type)`` columns, in table order."""
    return pa.schema([(name, _ARROW_TYPES[kind]) for name, kind in columns])


def copy_rows(
    conn: Connection, table: str, columns: pa.Schema, rows: Sequence[Mapping[str, object]]
) -> None:
    """Insert ``rows`` into ``table`` (node or relationship) with ``COPY``, one
    slice of ``COPY_SLICE`` at a time, in the caller's transaction.

    Raises:
        whatever Kuzu raises: a duplicate primary key, an endpoint that does not
        exist; the caller's transaction is then to be rolled back.
    """
    for start in range(0, len(rows), COPY_SLICE):
        part = pa.Table.from_pylist(list(rows[start : start + COPY_SLICE]), schema=columns)
        conn.execute(f"COPY {table} FROM $rows", {"rows": part})


ENTITY = schema(
    [
        ("id", "STRING"),
        ("name", "STRING"),
        ("normalized_name", "STRING"),
        ("type", "STRING"),
        ("namespace", "STRING"),
        ("identifier", "STRING"),
        ("description", "STRING"),
        ("aliases", "STRING"),
        ("keys", "STRING"),
        ("first_seen", "STRING"),
        ("last_seen", "STRING"),
        ("dataset_id", "STRING"),
    ]
)
DOCUMENT = schema(
    [
        ("id", "STRING"),
        ("dataset_id", "STRING"),
        ("dataset_name", "STRING"),
        ("name", "STRING"),
        ("kind", "STRING"),
        ("content_hash", "STRING"),
        ("source_id", "STRING"),
        ("metadata", "STRING"),
        ("created_at", "STRING"),
        ("chunk_count", "INT64"),
    ]
)
CHUNK = schema(
    [
        ("id", "STRING"),
        ("data_id", "STRING"),
        ("dataset_id", "STRING"),
        ("chunk_index", "INT64"),
        ("text", "STRING"),
        ("message_ids", "STRING[]"),
        ("speaker", "STRING"),
        ("timestamp", "STRING"),
    ]
)
EVENT = schema(
    [
        ("id", "STRING"),
        ("text", "STRING"),
        ("time", "STRING"),
        ("time_text", "STRING"),
        ("granularity", "STRING"),
        ("chunk_id", "STRING"),
        ("data_id", "STRING"),
        ("dataset_id", "STRING"),
        ("namespace", "STRING"),
        ("valid_from", "STRING"),
    ]
)
SUMMARY = schema(
    [
        ("id", "STRING"),
        ("data_id", "STRING"),
        ("dataset_id", "STRING"),
        ("namespace", "STRING"),
        ("text", "STRING"),
        ("method", "STRING"),
    ]
)
EDGE = schema([("from", "STRING"), ("to", "STRING")])
"""A relationship without properties (CONTAINS, HAS_DATA, IS_A, EVENT_IN, EVENT_OF, MADE_FROM)."""
MENTION = schema(
    [
        ("from", "STRING"),
        ("to", "STRING"),
        ("surface", "STRING"),
        ("start_offset", "INT64"),
        ("end_offset", "INT64"),
        ("count", "INT64"),
    ]
)
RELATES = schema(
    [
        ("from", "STRING"),
        ("to", "STRING"),
        ("id", "STRING"),
        ("predicate", "STRING"),
        ("raw_predicate", "STRING"),
        ("context", "STRING"),
        ("confidence", "DOUBLE"),
        ("time_text", "STRING"),
        ("timestamp", "STRING"),
        ("granularity", "STRING"),
        ("chunk_id", "STRING"),
        ("data_id", "STRING"),
        ("dataset_id", "STRING"),
        ("valid_from", "STRING"),
        ("valid_until", "STRING"),
        ("superseded_by", "STRING"),
        ("superseded_by_chunk", "STRING"),
        ("family", "STRING"),
    ]
)
