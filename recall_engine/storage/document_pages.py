"""The listing reads of data items, in the Cypher both graph backends run.

A tenant listing shows one page of a dataset's items in listing order (created_at,
then id). ``page_query`` orders and cuts in the store, ``COUNT_QUERY`` counts, and
``before_query`` says where given items stand in that order, so a page reads only the
rows it returns (``tenants.source_rows``). A listing by ids or by metadata values
reads the items that may hold what it asks for (``candidates_query``). Kuzu and
FalkorDB run the same text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from recall_engine.core.cells import Cell, Row
from recall_engine.storage.graph_reads import DOCUMENT_COLUMNS, DocumentRecord, document_from_row

COUNT_QUERY = "MATCH (d:Document) WHERE d.dataset_id = $ds RETURN count(d)"
"""How many data items one dataset (``$ds``) holds."""


def page_query(
    dataset_id: str, *, skip: int, limit: int | None, source_prefix: str | None
) -> tuple[str, dict[str, object]]:
    """The query and parameters for ``limit`` items (None: all) of one dataset after
    the first ``skip``, in listing order; with ``source_prefix``, only the items whose
    source id starts with it. Rows as ``graph_reads.document_from_row`` reads them."""
    where = "d.dataset_id = $ds" + (" AND d.source_id STARTS WITH $p" if source_prefix else "")
    bound = " LIMIT $limit" if limit is not None else ""
    params: dict[str, object] = {"ds": dataset_id, "skip": max(0, skip)}
    if source_prefix:
        params["p"] = source_prefix
    if limit is not None:
        params["limit"] = max(0, limit)
    query = (
        f"MATCH (d:Document) WHERE {where} RETURN {DOCUMENT_COLUMNS} "
        f"ORDER BY d.created_at, d.id SKIP $skip{bound}"
    )
    return query, params


ID_SLICE = 128
"""Ids bound to one candidates query: Kuzu plans a query holding the GIL for a time
that grows with its parameter lists (``kuzu_graph_elements``)."""


def metadata_text(key: str, value: str) -> str:
    """How a data item's stored metadata spells the pair ``key: value`` wherever it
    holds it (``records.DataItemRecord.metadata_json``'s encoding)."""
    return json.dumps({key: value}, sort_keys=True, default=str)[1:-1]


def candidates_query(
    dataset_id: str,
    *,
    ids: Sequence[str] | None,
    holding: Sequence[tuple[str, str]],
    also_prefix: str | None,
    also: bool = True,
) -> tuple[str, dict[str, object]]:
    """The query and parameters for the items of one dataset, in listing order, that
    may hold a wanted source: of the items with a source id, those whose source id
    is one of ``ids`` (None: any) and whose metadata holds every pair
    ``(key, string value)`` of ``holding`` at some level; and (with ``also``) every
    item with no source id or with one that starts with ``also_prefix`` (when
    given), whose sources only their chunks name. A pair is found as text in the
    stored JSON, so an item may be returned that holds it elsewhere: the caller
    checks the values."""
    params: dict[str, object] = {"ds": dataset_id}
    either: list[str] = []
    if ids is None or ids:
        wanted = ["d.source_id IS NOT NULL", "d.source_id <> ''"]
        if ids is not None:
            params["ids"] = list(ids)
            wanted.append("d.source_id IN $ids")
        for n, (key, value) in enumerate(holding):
            params[f"h{n}"] = metadata_text(key, value)
            wanted.append(f"d.metadata CONTAINS $h{n}")
        either.append(f"({' AND '.join(wanted)})")
    if also:
        either += ["d.source_id IS NULL", "d.source_id = ''"]
        if also_prefix is not None:
            params["p"] = also_prefix
            either.append("d.source_id STARTS WITH $p")
    where = " OR ".join(either) or "false"
    query = (
        f"MATCH (d:Document) WHERE d.dataset_id = $ds AND ({where}) "
        f"RETURN {DOCUMENT_COLUMNS} ORDER BY d.created_at, d.id"
    )
    return query, params


def before_query(dataset_id: str, keys: Sequence[tuple[str, str]]) -> tuple[str, dict[str, object]]:
    """The query and parameters counting, for each (created_at, id) of ``keys``, the
    items of one dataset that listing order puts before it (``counts_before`` reads
    its rows)."""
    query = (
        "UNWIND $keys AS k MATCH (d:Document) WHERE d.dataset_id = $ds AND "
        "(d.created_at < k.at OR (d.created_at = k.at AND d.id < k.id)) "
        "RETURN k.at, k.id, count(d)"
    )
    return query, {"ds": dataset_id, "keys": [{"at": at, "id": i} for at, i in keys]}


def counts_before(rows: Sequence[Sequence[Cell]], keys: Sequence[tuple[str, str]]) -> list[int]:
    """Per key of ``keys``, the count ``before_query``'s rows give (0 where none)."""
    counts = {(r[0], r[1]): int(r[2]) for r in rows}
    return [counts.get((at, i), 0) for at, i in keys]


class DocumentPageReads:
    """``GraphStore``'s listing reads over the backend's own ``read`` (Kuzu's and
    FalkorDB's stores both mix it in)."""

    def read(self, query: str, params: dict[str, object] | None = None) -> list[Row]:
        raise NotImplementedError  # pragma: no cover - the backend's read

    def documents_page(
        self,
        dataset_id: str,
        *,
        skip: int = 0,
        limit: int | None = None,
        source_prefix: str | None = None,
    ) -> list[DocumentRecord]:
        """Data items of one dataset in listing order (``page_query``)."""
        query, params = page_query(dataset_id, skip=skip, limit=limit, source_prefix=source_prefix)
        return [document_from_row(r) for r in self.read(query, params)]

    def documents_matching(
        self,
        dataset_id: str,
        *,
        ids: Sequence[str] | None = None,
        holding: Sequence[tuple[str, str]] = (),
        also_prefix: str | None = None,
    ) -> list[DocumentRecord]:
        """Data items of one dataset in listing order that may hold a source of
        ``ids`` (None: any) whose metadata holds each pair of ``holding``, and those
        with no source id or one starting with ``also_prefix``
        (``candidates_query``: a superset; the caller checks the values). ``ids``
        are bound ``ID_SLICE`` to a query."""
        parts: list[Sequence[str] | None] = [None] if ids is None else [ids[:ID_SLICE]]
        if ids is not None:
            parts += [ids[n : n + ID_SLICE] for n in range(ID_SLICE, len(ids), ID_SLICE)]
        found: dict[str, DocumentRecord] = {}
        for n, part in enumerate(parts):
            query, params = candidates_query(
                dataset_id, ids=part, holding=holding, also_prefix=also_prefix, also=n == 0
            )
            for row in self.read(query, params):
                record = document_from_row(row)
                found.setdefault(record.id, record)
        records = list(found.values())
        return records if len(parts) == 1 else sorted(records, key=lambda d: (d.created_at, d.id))

    def document_count(self, dataset_id: str) -> int:
        """How many data items one dataset holds (a count query)."""
        rows = self.read(COUNT_QUERY, {"ds": dataset_id})
        return int(rows[0][0]) if rows else 0

    def documents_before(self, dataset_id: str, keys: Sequence[tuple[str, str]]) -> list[int]:
        """For each (created_at, id) of ``keys``, how many data items of one dataset
        ``documents_page`` orders before it (one query for them all)."""
        if not keys:
            return []
        return counts_before(self.read(*before_query(dataset_id, keys)), keys)
