"""Times for the facts and events a Kuzu graph kept from before facts had time.

``backfill`` writes what ``fact_times.plan`` works out (the times a fresh ingest
gives them), then recomputes every (dataset, subject, family) group the dated
facts join (``kuzu_validity.refresh``), and marks the graph dated: the comment
``fact_times.MARK`` on the ``RELATES`` table, in the same transaction. An open of
a marked graph does not scan it again (a scan costs 25-60 ms at 300,000 facts),
and every graph an ingest writes from then on is dated by the ingest itself.

It writes in one transaction and then checkpoints, so a process killed during it
leaves the facts as they were and the graph unmarked (``kuzu_wal`` sets the
unfinished log aside) and the next open does it again; so does one that fails.
A graph with nothing to date is marked after the scan that found nothing.
"""

from __future__ import annotations

import logging

from recall_engine.core.cells import Row
from recall_engine.storage import kuzu_graph_elements as ge
from recall_engine.storage import kuzu_validity as validity
from recall_engine.storage.fact_times import MARK, Stamp, plan

__all__ = ["Stamp", "backfill", "is_marked"]

log = logging.getLogger(__name__)

_MARK_STATEMENT = f"COMMENT ON TABLE RELATES IS '{MARK}'"


def is_marked(conn: ge.Connection) -> bool:
    """Whether the graph's facts and events were all dated (``fact_times.MARK``)."""
    rows = conn.execute("CALL show_tables() WHERE name = 'RELATES' RETURN comment").get_all()
    return bool(rows) and rows[0][0] == MARK


def backfill(conn: ge.Connection, stamp: Stamp) -> int:
    """Date the facts and events stored without a time, recompute the validity of
    the groups those facts join, and mark the graph dated; return how many were
    dated. A marked graph is left as it is, unread.

    Raises:
        whatever Kuzu raises; the transaction is then rolled back.
    """
    if is_marked(conn):
        return 0

    def read(query: str, params: dict[str, object] | None = None) -> list[Row]:
        return [list(r) for r in conn.execute(query, params or {}).get_all()]

    work = plan(read, stamp)
    conn.execute("CHECKPOINT")  # the columns the schema just added are stored first
    conn.execute("BEGIN TRANSACTION")
    try:
        ge.execute_rows(
            conn,
            "UNWIND $rows AS u "
            "MATCH (a:Entity {id: u.source})-[r:RELATES]->(b:Entity {id: u.target}) "
            "WHERE r.id = u.id SET r.valid_from = u.valid_from, "
            "r.valid_until = u.valid_until, r.family = u.family",
            [fact.update() for fact in work.facts],
        )
        ge.execute_rows(
            conn,
            "UNWIND $rows AS u MATCH (v:Event {id: u.id}) SET v.valid_from = u.valid_from",
            work.events,
        )
        validity.refresh(conn, work.groups)
        conn.execute(_MARK_STATEMENT)
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise
    conn.execute("CHECKPOINT")
    if work.left:
        log.warning(
            "Kuzu: %d stored fact(s) or event(s) have no readable time; left undated", work.left
        )
    return len(work.facts) + len(work.events)
