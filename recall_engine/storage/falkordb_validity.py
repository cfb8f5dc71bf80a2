"""Facts' validity in FalkorDB: recompute the (dataset, subject, family) groups a
write or deletion touched (``core.facts.timeline``) and update the edges whose
validity changed.

FalkorDB runs each query as a unit but has no multi-query transaction, so this
runs as a read and an update just after the write: a reader may see a new fact
for that moment before the older one it replaces is marked. A later write or
deletion of the group recomputes it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from recall_engine.core.cells import Record, Row
from recall_engine.storage.kuzu_validity import Group, changed_rows


class _Reads(Protocol):
    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]: ...


class _Graph(_Reads, Protocol):
    def write_validity(self, changes: Sequence[Record]) -> None: ...


def groups_of_data(graph: _Graph, data_ids: Sequence[str]) -> set[Group]:
    """The groups of the relations these data items' chunks state (read before deleting)."""
    if not data_ids:
        return set()
    rows = graph.read(
        "UNWIND $ids AS i MATCH (a:Entity)-[r:RELATES {data_id: i}]->(:Entity) "
        "WHERE r.family IS NOT NULL RETURN DISTINCT r.dataset_id, a.id, r.family",
        {"ids": list(dict.fromkeys(data_ids))},
    )
    return {(row[0], row[1], row[2]) for row in rows}


def group_rows(graph: _Reads, groups: Iterable[Group]) -> list[Row]:
    """The stored facts of ``groups``, as ``kuzu_validity.changed_rows`` reads them."""
    keys = [{"ds": d, "source": s, "family": f} for d, s, f in sorted(set(groups))]
    if not keys:
        return []
    return graph.read(
        "UNWIND $keys AS k MATCH (a:Entity {id: k.source})-[r:RELATES]->(b:Entity) "
        "WHERE r.dataset_id = k.ds AND r.family = k.family "
        "RETURN k.ds, a.id, k.family, r.id, b.id, r.chunk_id, r.valid_from, r.confidence, "
        "r.valid_until, r.superseded_by, r.superseded_by_chunk, r.predicate",
        {"keys": keys},
    )


def refresh(graph: _Graph, groups: Iterable[Group]) -> int:
    """Recompute ``groups`` and write what changed; return how many edges changed."""
    rows = group_rows(graph, groups)
    if not rows:
        return 0
    changes = changed_rows(rows)
    if changes:
        graph.write_validity(changes)
    return len(changes)
