"""Keep Kuzu's checkpoint from dropping the relationships a deletion left.

Kuzu 0.11.3 stores a relationship table as CSR node groups of ``NODE_GROUP_SIZE``
bound nodes (one set per direction: by source, by destination), each cut into
leaf regions of 1,024 nodes. A checkpoint rewrites only the regions that
changed, and when those regions hold no relationship afterwards it concludes
that the whole node group is empty (``CSRNodeGroup::checkpointInMemAndOnDisk``
counts the changed regions only) and drops its stored part: every relationship
of the group's other regions goes with it. Forgetting a large item whose chunks
sit past the first 1,024 offsets, then a small one there, emptied such a region
and the next checkpoint (a ``COPY``'s commit, the WAL threshold, or closing)
took every ``MENTIONS`` edge of the tenant, other datasets' included.

Whatever a transaction deletes, ``refresh_groups`` re-creates in it one surviving
relationship of every node group of the tables it deletes from, in each
direction: that region then has an insertion and holds it, so a checkpoint
always counts at least one relationship in a group that still has some, and
rewrites the emptied regions as it should. The re-created relationship keeps its
ends and every property (read from the catalogue, so properties added later are
carried too); only its internal id changes.

A deleting write first calls ``checkpoint`` (outside its transaction) and
re-creates before it inserts anything, so only stored relationships are
re-created: deleting and re-creating the same relationships while they were
still in memory, forget after forget, misaligned their properties in Kuzu's
in-memory CSR index (a filter on ``r.id`` returned another relationship's id).
Touching a property instead (``SET r.p = r.p``) is no way out: replaying such an
update from the WAL fails in Kuzu (``KU_UNREACHABLE`` in ``CSRNodeGroup::update``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterable
from typing import Any, Protocol

from recall_engine.core.cells import Cell, Row

NODE_GROUP_SIZE = 1 << 17
"""Bound nodes per CSR node group (Kuzu's ``StorageConfig::NODE_GROUP_SIZE``)."""


class Connection(Protocol):
    def execute(self, query: str, params: dict[str, object] | None = None) -> Any: ...


def _rows(conn: Connection, query: str, params: dict[str, object] | None = None) -> list[Row]:
    return [list(r) for r in conn.execute(query, params or {}).get_all()]


def checkpoint(conn: Connection) -> None:
    """Checkpoint, so that the relationships ``refresh_groups`` re-creates are stored.

    Raises:
        whatever Kuzu raises.
    """
    conn.execute("CHECKPOINT")


def settle(conn: Connection) -> None:
    """Checkpoint right after a commit that re-created relationships.

    The transaction is right in memory, but replaying its re-created
    relationships from the WAL (a crash before the next checkpoint) gives Kuzu
    0.11.3 a second copy of each in the by-destination index. Checkpointing at
    once leaves nothing of it to replay. The commit has already happened, so a
    failing checkpoint is not the write's failure: the next one retries it.
    """
    with contextlib.suppress(Exception):
        conn.execute("CHECKPOINT")


def refresh_groups(conn: Connection, tables: Iterable[str], *, avoid: Collection[str] = ()) -> int:
    """Re-create one relationship per node group and direction of each of
    ``tables`` (this package's relationship table names, never user text), in
    the caller's transaction, none with an end whose key is in ``avoid`` (nodes
    the transaction deletes later); return how many were re-created.

    Raises:
        whatever Kuzu raises; the caller's transaction is then to be rolled back.
    """
    count = 0
    for table in sorted(set(tables)):
        src, dst, src_key, dst_key = _rows(conn, f"CALL show_connection('{table}') RETURN *")[0]
        props = dict(_rows(conn, f"CALL table_info('{table}') RETURN name, type"))
        match = f"MATCH (a:{src})-[r:{table}]->(b:{dst}) "
        if avoid:
            match += f"WHERE NOT (a.{src_key} IN $avoid OR b.{dst_key} IN $avoid) WITH a, r, b "
        keep: dict[str, object] = {"avoid": sorted(avoid)} if avoid else {}
        pairs: set[tuple[Cell, Cell]] = set()
        for end in ("a", "b"):
            firsts = _rows(
                conn,
                f"{match}RETURN offset(id({end})) / {NODE_GROUP_SIZE} AS g, "
                f"min(offset(id({end}))) AS o",
                keep,
            )
            for _, first in firsts:
                pairs.update(
                    (a, b)
                    for a, b in _rows(
                        conn,
                        f"{match}WHERE offset(id({end})) = $o "
                        f"RETURN a.{src_key}, b.{dst_key} LIMIT 1",
                        {"o": first, **keep},
                    )
                )
        for a, b in sorted(pairs):
            count += _recreate(conn, table, (src, src_key, a), (dst, dst_key, b), props)
    return count


def _recreate(
    conn: Connection,
    table: str,
    source: tuple[str, str, Cell],
    target: tuple[str, str, Cell],
    props: dict[str, str],
) -> int:
    """Delete and create again, with the same properties (name -> Kuzu type),
    every ``table`` relationship from ``source`` to ``target`` (label, key column, key)."""
    ends = f"(a:{source[0]} {{{source[1]}: $a}}), (b:{target[0]} {{{target[1]}: $b}}) "
    pattern = (
        f"MATCH (a:{source[0]} {{{source[1]}: $a}})-[r:{table}]->"
        f"(b:{target[0]} {{{target[1]}: $b}}) "
    )
    params = {"a": source[2], "b": target[2]}
    returned = ", ".join(f"r.{p}" for p in props) or "1"
    found = _rows(conn, f"{pattern}RETURN {returned}", params)
    if not found:
        return 0
    conn.execute(f"{pattern}DELETE r", params)
    if props:
        # Typed by the catalogue: a column of nulls in $rows has no type of its own.
        setting = " {" + ", ".join(f"{p}: CAST(row.{p} AS {t})" for p, t in props.items()) + "}"
        rows: list[Cell] = [dict(zip(props, row, strict=True)) for row in found]
    else:
        setting, rows = "", list(range(len(found)))
    conn.execute(
        f"UNWIND $rows AS row MATCH {ends}CREATE (a)-[:{table}{setting}]->(b)",
        {**params, "rows": rows},
    )
    return len(found)
