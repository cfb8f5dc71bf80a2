"""Facts' validity in Kuzu: the columns, their migration, and keeping them current.

Every RELATES edge carries ``valid_from``, ``valid_until``, ``superseded_by``,
``superseded_by_chunk`` (ISO times and ids) and ``family``. After an ingest
writes relations, or a deletion removes some, the (dataset, subject, family)
groups it touched are read back and recomputed by ``core.facts.timeline``, in
the same transaction, and only the edges whose validity changed are updated:
so a forgotten statement's replaced facts hold again, unless another remaining
statement replaces them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from recall_engine.core.cells import Cell, Record
from recall_engine.core.facts import (
    Statement,
    Validity,
    is_ending,
    is_multi_valued,
    is_past,
    kind_of,
    parse_utc,
    timeline,
)
from recall_engine.core.graph import Relation
from recall_engine.storage.kuzu_entity_lists import Connection

VALIDITY_COLUMNS = (
    ("valid_from", "STRING"),
    ("valid_until", "STRING"),
    ("superseded_by", "STRING"),
    ("superseded_by_chunk", "STRING"),
    ("family", "STRING"),
)
MIGRATIONS = [f"ALTER TABLE RELATES ADD IF NOT EXISTS {n} {t}" for n, t in VALIDITY_COLUMNS]
"""Stores made before facts had time gain the columns (null: no time, no family)."""

Group = tuple[str, str, str]
"""(dataset id, subject entity id, family)."""


def validity_row(r: Relation) -> Record:
    """The validity columns of a relation as written."""
    return {
        "valid_from": r.valid_from.isoformat() if r.valid_from else None,
        "valid_until": r.valid_until.isoformat() if r.valid_until else None,
        "superseded_by": r.superseded_by,
        "superseded_by_chunk": r.superseded_by_chunk,
        "family": r.family,
    }


def groups_of(relations: Iterable[Relation], dataset_id: str) -> set[Group]:
    """The groups these relations belong to (those with a family)."""
    return {(dataset_id, r.source_id, r.family) for r in relations if r.family}


def groups_of_data(conn: Connection, data_ids: Sequence[str]) -> set[Group]:
    """The groups of the relations these data items' chunks state (read before deleting)."""
    if not data_ids:
        return set()
    result = conn.execute(
        "MATCH (a:Entity)-[r:RELATES]->(:Entity) WHERE r.data_id IN $ids "
        "AND r.family IS NOT NULL RETURN DISTINCT r.dataset_id, a.id, r.family",
        {"ids": list(data_ids)},
    )
    return {(row[0], row[1], row[2]) for row in result.get_all()}


def refresh(conn: Connection, groups: Iterable[Group]) -> int:
    """Recompute the validity of every fact of ``groups`` and write the changes;
    return how many edges changed."""
    keys = [{"ds": d, "source": s, "family": f} for d, s, f in sorted(set(groups))]
    if not keys:
        return 0
    result = conn.execute(
        "UNWIND $keys AS k MATCH (a:Entity {id: k.source})-[r:RELATES]->(b:Entity) "
        "WHERE r.dataset_id = k.ds AND r.family = k.family "
        "RETURN k.ds, a.id, k.family, r.id, b.id, r.chunk_id, r.valid_from, r.confidence, "
        "r.valid_until, r.superseded_by, r.superseded_by_chunk, r.predicate",
        {"keys": keys},
    )
    rows = result.get_all()
    changes = changed_rows(rows)
    for start in range(0, len(changes), 128):
        conn.execute(
            "UNWIND $rows AS u "
            "MATCH (a:Entity {id: u.source})-[r:RELATES]->(b:Entity {id: u.target}) "
            "WHERE r.id = u.id SET r.valid_until = u.valid_until, "
            "r.superseded_by = u.superseded_by, r.superseded_by_chunk = u.superseded_by_chunk",
            {"rows": changes[start : start + 128]},
        )
    return len(changes)


def changed_rows(rows: Sequence[Sequence[Cell]]) -> list[Record]:
    """From rows (ds, subject, family, id, target, chunk, valid_from, confidence,
    valid_until, superseded_by, superseded_by_chunk, predicate): the updates that
    ``timeline`` asks for where the stored validity differs. Shared with FalkorDB."""
    by_group: dict[tuple[str, str, str], list[Sequence[Cell]]] = {}
    for row in rows:
        by_group.setdefault((row[0], row[1], row[2]), []).append(row)
    out = []
    for members in by_group.values():
        statements = [_statement(row) for row in members]
        computed = timeline(statements, multi_valued=is_multi_valued(members[0][2]))
        for row in members:
            new: Validity = computed[row[3]]
            until = new.valid_until.isoformat() if new.valid_until else None
            if (until, new.superseded_by, new.superseded_by_chunk) != (row[8], row[9], row[10]):
                out.append(
                    {
                        "id": row[3],
                        "source": row[1],
                        "target": row[4],
                        "valid_until": until,
                        "superseded_by": new.superseded_by,
                        "superseded_by_chunk": new.superseded_by_chunk,
                    }
                )
    return out


def _statement(row: Sequence[Cell]) -> Statement:
    """A stored fact as ``timeline`` reads it; a past one (``core.facts.PAST``) is
    ordered by its statement time, which it keeps as its ``valid_until``."""
    valid_from, valid_until = parse_utc(row[6]), parse_utc(row[8])
    past = is_past(valid_from, valid_until)
    return Statement(
        row[3],
        row[4],
        row[5] or "",
        valid_until if past else valid_from,
        float(row[7] or 0.0),
        ends=is_ending(row[11] or ""),
        past=past,
        kind=kind_of(row[11] or ""),
    )
