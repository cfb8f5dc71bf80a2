"""The Kuzu store's tables, and bringing a graph an earlier version wrote to them,
in place, when it is opened (``migrate``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from recall_engine.core.errors import StoreError
from recall_engine.storage import kuzu_entity_lists as lists
from recall_engine.storage import kuzu_fact_times
from recall_engine.storage import kuzu_graph_elements as ge

SCHEMA = [
    "CREATE NODE TABLE IF NOT EXISTS Dataset("
    "id STRING PRIMARY KEY, name STRING, created_at STRING)",
    "CREATE NODE TABLE IF NOT EXISTS Document("
    "id STRING PRIMARY KEY, dataset_id STRING, dataset_name STRING, name STRING, kind STRING, "
    "content_hash STRING, source_id STRING, metadata STRING, created_at STRING, "
    "chunk_count INT64)",
    "CREATE NODE TABLE IF NOT EXISTS Chunk("
    "id STRING PRIMARY KEY, data_id STRING, dataset_id STRING, chunk_index INT64, "
    "text STRING, message_ids STRING[], speaker STRING, timestamp STRING)",
    # A data item whose graph extraction failed: stored without its graph until
    # a remember() of the same content retries it. A table of its own, so stores
    # made before it existed need no migration.
    "CREATE NODE TABLE IF NOT EXISTS ExtractionFailure(data_id STRING PRIMARY KEY, reason STRING)",
    "CREATE REL TABLE IF NOT EXISTS HAS_DATA(FROM Dataset TO Document)",
    "CREATE REL TABLE IF NOT EXISTS CONTAINS(FROM Document TO Chunk)",
    *ge.GRAPH_SCHEMA,
]


def migrate(conn: lists.Connection, stamp: kuzu_fact_times.Stamp | None = None) -> None:
    """Bring a graph to this version's layout, in place: the tables and columns
    it lacks (``SCHEMA``), text entity lists (``kuzu_entity_lists``), and with
    ``stamp`` the times of facts stored before facts had them (``kuzu_fact_times``;
    a graph once marked dated is not scanned again). Every step is decided from the
    store itself, so a step cut short (a process killed, a failure) is done again
    on the next open.

    Raises:
        whatever Kuzu raises.
    """
    for statement in missing(conn, SCHEMA):
        conn.execute(statement)
    lists.migrate(conn)
    if stamp is not None:
        kuzu_fact_times.backfill(conn, stamp)


_CREATES = re.compile(r"CREATE (?:NODE|REL) TABLE IF NOT EXISTS (\w+)")
_ADDS = re.compile(r"ALTER TABLE (\w+) ADD IF NOT EXISTS (\w+)")


def missing(conn: lists.Connection, statements: Sequence[str]) -> list[str]:
    """The ``statements`` whose table or column the graph lacks, in order (a column's
    whenever its table is created by them; a statement of another shape always).

    A statement that would change nothing is not run: each is a write transaction,
    and an open of a current graph then writes nothing, so a process that ends
    without closing it (killed, Ctrl-C) leaves no write-ahead log that the next open
    would take for an unfinished write (``kuzu_wal``).
    """
    tables = {row[0] for row in conn.execute("CALL show_tables() RETURN name").get_all()}
    columns: dict[str, set[str]] = {}
    needed = []
    for statement in statements:
        if created := _CREATES.match(statement):
            if created.group(1) not in tables:
                needed.append(statement)
        elif added := _ADDS.match(statement):
            table, column = added.groups()
            if table in tables and table not in columns:
                info = conn.execute(f"CALL table_info('{table}') RETURN name").get_all()
                columns[table] = {row[0] for row in info}
            if column not in columns.get(table, set()):
                needed.append(statement)
        else:
            needed.append(statement)
    return needed


def migration_error(graph_path: Path, exc: Exception) -> StoreError:
    """A failure to bring a graph to this version's layout, as a library error
    that says the data is kept and what to do (no server paths)."""
    return StoreError(
        f"The graph of tenant {graph_path.parent.name!r} could not be brought to this "
        f"version's layout ({type(exc).__name__}; the cause is chained to this error). Its "
        "data is kept as it was, and the next open tries again: check that the data dir's "
        "files are readable and writable; if it fails again, keep a copy of the data dir "
        "and report the error with its cause."
    )
