"""The Kuzu store's tables, and bringing a graph an earlier version wrote to them,
in place, when it is opened (``migrate``)."""

from __future__ import annotations

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
    for statement in SCHEMA:
        conn.execute(statement)
    lists.migrate(conn)
    if stamp is not None:
        kuzu_fact_times.backfill(conn, stamp)


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
