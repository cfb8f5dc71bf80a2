"""Times for the facts and events a FalkorDB graph kept from before facts had time.

``backfill`` writes what ``fact_times.plan`` works out (the times a fresh ingest
gives them) and the validity of every (dataset, subject, family) group the dated
facts join (``kuzu_validity.changed_rows`` over the group's stored facts and the
newly dated ones), then marks the graph dated with a ``LayoutMark`` node
(``fact_times.MARK``), which later opens read instead of scanning.

FalkorDB has no multi-query transaction, but runs each query as a unit. So the
facts are written in parts of whole groups, one query each (``PART_FACTS`` facts
or so): a part holds each of its groups' facts entirely, dates and validity
together, so a process stopped between two parts leaves every group as it was or
done; the next open finds the facts still undated and dates them, and only then
sets the mark. Each part's query first checks that none of its facts has been
dated since the scan (another replica opening the same graph at the same time):
if one has, the query changes nothing and the open starts over from the mark.
The writes are not fenced (``falkordb_writes``): a replica dates the graph when
it opens it, before it holds the writer lease.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from recall_engine.core.cells import Record, Row
from recall_engine.core.errors import StoreError
from recall_engine.storage.fact_times import MARK, DatedFact, Plan, Stamp, plan
from recall_engine.storage.falkordb_validity import group_rows
from recall_engine.storage.falkordb_writes import WriteQuery
from recall_engine.storage.kuzu_validity import changed_rows

log = logging.getLogger(__name__)

LABEL = "LayoutMark"
"""The label of the node that marks a graph dated (never a data label)."""
PART_FACTS = 2048
"""About how many facts (or events) one query dates; a group is never split."""
ATTEMPTS = 3
"""How many times an open starts over when another process dated facts meanwhile."""

_VALIDITY = ("valid_until", "superseded_by", "superseded_by_chunk")


class Graph(Protocol):
    """What ``backfill`` needs of ``FalkorGraphStore``."""

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]: ...

    def write_guarded(self, text: str, params: dict[str, object]) -> bool: ...


def is_marked(graph: Graph) -> bool:
    """Whether the graph's facts and events were all dated (``fact_times.MARK``)."""
    rows = graph.read(f"MATCH (m:{LABEL} {{id: $mark}}) RETURN count(m)", {"mark": MARK})
    return bool(rows and rows[0][0])


def backfill(graph: Graph, stamp: Stamp) -> int:
    """Date the facts and events stored without a time, with their groups'
    validity, and mark the graph dated; return how many were dated. A marked
    graph is left as it is, after one read.

    Raises:
        StoreError: the server failed a read or a write (what was written stays,
            whole parts only; the next open goes on), or other processes kept
            dating the same facts for ``ATTEMPTS`` tries.
    """
    for _ in range(ATTEMPTS):
        if is_marked(graph):
            return 0
        work = plan(graph.read, stamp)
        if all(graph.write_guarded(*query) for query in _queries(graph, work)):
            graph.write_guarded(f"MERGE (:{LABEL} {{id: $mark}}) RETURN 1", {"mark": MARK})
            if work.left:
                log.warning(
                    "FalkorDB: %d stored fact(s) or event(s) have no readable time; left undated",
                    work.left,
                )
            return len(work.facts) + len(work.events)
    raise StoreError(
        "The graph's facts kept being dated by another process while this one dated them; "
        "open the store again."
    )


def _queries(graph: Graph, work: Plan) -> list[tuple[str, dict[str, object]]]:
    """The queries (text, parameters) that write ``work``, part by part."""
    queries = [_query(graph, part, []) for part in _parts(work.facts)]
    for start in range(0, len(work.events), PART_FACTS):
        queries.append(_query(graph, [], work.events[start : start + PART_FACTS]))
    return queries


def _parts(facts: Sequence[DatedFact]) -> list[list[DatedFact]]:
    """``facts`` cut into parts of about ``PART_FACTS``, each group whole (a fact
    of no family is a group of its own)."""
    groups: dict[tuple[str, str, str] | str, list[DatedFact]] = {}
    for fact in facts:
        key = (fact.dataset_id, fact.source, fact.family) if fact.family else fact.id
        groups.setdefault(key, []).append(fact)
    parts: list[list[DatedFact]] = [[]]
    for members in groups.values():
        if len(parts[-1]) >= PART_FACTS:
            parts.append([])
        parts[-1].extend(members)
    return [part for part in parts if part]


def _query(
    graph: Graph, facts: Sequence[DatedFact], events: Sequence[Record]
) -> tuple[str, dict[str, object]]:
    """One part's query: nothing unless none of its facts is dated yet; then the
    facts' times and validity, the validity their groups' stored facts take from
    them, and the events' times."""
    groups = {(f.dataset_id, f.source, f.family) for f in facts if f.family}
    stored = group_rows(graph, groups)
    ours = {f.id for f in facts}
    changes = {c["id"]: c for c in changed_rows([*stored, *(f.validity_row() for f in facts)])}
    rows = []
    for fact in facts:
        row: Record = {**fact.update(), "superseded_by": None, "superseded_by_chunk": None}
        if fact.id in changes:
            row.update({name: changes[fact.id][name] for name in _VALIDITY})
        rows.append(row)
    query = WriteQuery()
    query.step(
        "facts",
        rows,
        "MATCH ()-[x:RELATES {id: r.id}]->() "
        "WHERE x.valid_from IS NULL AND x.valid_until IS NULL "
        "SET x.valid_from = r.valid_from, x.valid_until = r.valid_until, "
        "x.superseded_by = r.superseded_by, x.superseded_by_chunk = r.superseded_by_chunk, "
        "x.family = r.family",
    )
    query.step(
        "changes",
        [change for key, change in changes.items() if key not in ours],
        "MATCH ()-[x:RELATES {id: r.id}]->() SET x.valid_until = r.valid_until, "
        "x.superseded_by = r.superseded_by, x.superseded_by_chunk = r.superseded_by_chunk",
    )
    query.step(
        "events",
        events,
        "MATCH (v:Event {id: r.id}) WHERE v.valid_from IS NULL SET v.valid_from = r.valid_from",
    )
    query.params["ours"] = sorted(ours)
    guard = (
        "UNWIND $ours AS i OPTIONAL MATCH ()-[x:RELATES {id: i}]->() "
        "WHERE x.valid_from IS NOT NULL OR x.valid_until IS NOT NULL "
        "WITH count(x) AS dated WHERE dated = 0"
    )
    return " ".join([guard, *query.steps, "RETURN 1"]), query.params
