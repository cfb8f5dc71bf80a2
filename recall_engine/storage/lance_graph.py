"""LanceDB tables that make graph elements searchable by meaning.

One table each for entities, relations, events and summaries; every row has
the Kuzu id to join back, its dataset and namespace, and (except entities,
which outlive any one item) the data item it came from, for deletion and
orphan cleanup. ``LanceVectorStore`` owns the connection; this module only
uses the table objects it is given and never imports lancedb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from recall_engine.core.cells import Record
from recall_engine.core.errors import StoreError
from recall_engine.storage.graph_records import (
    ENTITIES,
    EVENTS,
    GRAPH_TABLES,
    RELATIONS,
    SUMMARIES,
    VectorRows,
)
from recall_engine.storage.lance_purge import purge_deleted

if TYPE_CHECKING:
    from lancedb.db import DBConnection
    from lancedb.table import Table

COLUMNS: dict[str, tuple[str, ...]] = {
    ENTITIES: ("id", "dataset_id", "namespace", "name", "type", "text"),
    RELATIONS: (
        "id",
        "dataset_id",
        "namespace",
        "data_id",
        "chunk_id",
        "source_id",
        "target_id",
        "predicate",
        "text",
    ),
    EVENTS: ("id", "dataset_id", "namespace", "data_id", "chunk_id", "time", "text"),
    SUMMARIES: ("id", "dataset_id", "namespace", "data_id", "method", "text"),
}
BATCH = 500
TAKE_BATCH = 2000  # row ids fetched per request when a mirror catches up


@dataclass(frozen=True)
class TableState:
    """What a mirror was last filled from: the table version and its rows
    (LanceDB row id -> the row's id column)."""

    version: int
    rows: Mapping[int, str]


@dataclass(frozen=True)
class RowChanges:
    """What changed in a graph table since a ``TableState``: ids whose rows left
    it (drop them), and the rows to (re)add with their vectors, in storage order."""

    gone: frozenset[str]
    rows: list[Record]
    vectors: np.ndarray


def listing_changes(
    table: Table,
    since: TableState | None,
    have: Callable[[str], bool],
    mirrored: Callable[[], set[str]] | None = None,
) -> tuple[TableState, frozenset[str], list[int]] | None:
    """The new state of a LanceDB table, the ids whose rows left it, and the row ids
    to fetch (new rows ``have`` does not hold, and rows of ids that left and came
    back); None when its version is ``since``'s. One version request when nothing
    changed, else one scan of the id column.

    ``mirrored``: the ids the mirror holds; those no longer in the table left it
    too (rows this process wrote and another deleted before this one listed them)."""
    version = int(table.version)
    if since is not None and version == since.version:
        return None
    listing = table.search().with_row_id(True).select(["id"]).limit(None).to_arrow()
    rows = dict(
        zip(listing.column("_rowid").to_pylist(), listing.column("id").to_pylist(), strict=True)
    )
    old = since.rows if since is not None else {}
    gone = {old[r] for r in old.keys() - rows.keys()}
    if mirrored is not None:
        gone |= mirrored() - set(rows.values())
    wanted = sorted(r for r, rid in rows.items() if rid in gone or (r not in old and not have(rid)))
    return TableState(version, rows), frozenset(gone), wanted


def take_rows(table: Table, wanted: Sequence[int]) -> pa.Table:
    """The rows of ``wanted`` row ids, in storage order."""
    parts = [
        table.take_row_ids(list(wanted[at : at + TAKE_BATCH])).with_row_id().to_arrow()
        for at in range(0, len(wanted), TAKE_BATCH)
    ]
    fetched = pa.concat_tables(parts) if parts else table.schema.empty_table()
    return fetched.sort_by("_rowid") if fetched.num_rows else fetched


def graph_schema(table: str, dimension: int) -> pa.Schema:
    return pa.schema(
        [pa.field(c, pa.string()) for c in COLUMNS[table]]
        + [pa.field("vector", pa.list_(pa.float32(), dimension))]
    )


def quote(values: Sequence[str]) -> str:
    """A SQL IN-list of string literals; ids are generated hex/uuid strings."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def rows_of_data(table: Table, data_ids: Sequence[str]) -> pa.Table:
    """Every row of ``table`` (all its columns) whose ``data_id`` is one of ``data_ids``.

    Raises:
        StoreError: the table could not be read.
    """
    ids = sorted(set(data_ids))
    parts = []
    try:
        for at in range(0, len(ids), BATCH):
            query = table.search().where(f"data_id IN ({quote(ids[at : at + BATCH])})")
            parts.append(query.limit(None).to_arrow())
    except Exception as exc:
        raise StoreError(f"LanceDB could not read rows of {len(ids)} data items: {exc}") from exc
    return pa.concat_tables(parts) if parts else table.schema.empty_table()


class LanceGraphTables:
    """The four graph tables of one tenant."""

    def __init__(self, db: DBConnection, dimension: int) -> None:
        self.dimension = dimension
        self._tables = {
            name: db.create_table(name, schema=graph_schema(name, dimension), exist_ok=True)
            for name in GRAPH_TABLES
        }

    def add(self, batch: VectorRows) -> None:
        """Append rows to one table in one LanceDB commit."""
        if not batch.rows:
            return
        columns = COLUMNS[batch.table]
        flat = pa.array(np.ascontiguousarray(batch.vectors, dtype=np.float32).ravel())
        data = {c: [row.get(c) for row in batch.rows] for c in columns}
        data["vector"] = pa.FixedSizeListArray.from_arrays(flat, self.dimension)
        try:
            self._tables[batch.table].add(
                pa.table(data, schema=graph_schema(batch.table, self.dimension))
            )
        except Exception as exc:
            raise StoreError(
                f"LanceDB refused {len(batch.rows)} {batch.table} rows: {exc}"
            ) from exc

    def delete_where(self, table: str, column: str, values: Iterable[str]) -> None:
        """Delete rows whose ``column`` is one of ``values`` (in batches)."""
        items = sorted(set(values))
        for start in range(0, len(items), BATCH):
            try:
                self._tables[table].delete(f"{column} IN ({quote(items[start : start + BATCH])})")
            except Exception as exc:
                raise StoreError(f"LanceDB could not delete {table} rows: {exc}") from exc

    def delete_data(self, data_ids: Sequence[str]) -> None:
        """Delete the relation, event and summary rows of the given data items."""
        for table in (RELATIONS, EVENTS, SUMMARIES):
            self.delete_where(table, "data_id", data_ids)

    def purge_deleted(self) -> None:
        """Take deleted rows out of every table's files (``lance_purge``); only for
        tables this process holds alone."""
        for table in self._tables.values():
            purge_deleted(table)

    def take_data(self, data_ids: Sequence[str]) -> dict[str, pa.Table]:
        """The relation, event and summary rows of ``data_ids`` as stored (every
        column), per table, for ``put_back``.

        Raises:
            StoreError: a table could not be read.
        """
        return {t: rows_of_data(self._tables[t], data_ids) for t in (RELATIONS, EVENTS, SUMMARIES)}

    def put_back(self, rows: Mapping[str, pa.Table]) -> None:
        """Append rows ``take_data`` read, unchanged (one LanceDB commit per table).

        Raises:
            StoreError: LanceDB refused them.
        """
        for table, taken in rows.items():
            if taken.num_rows:
                try:
                    self._tables[table].add(taken)
                except Exception as exc:
                    raise StoreError(
                        f"LanceDB refused {taken.num_rows} {table} rows: {exc}"
                    ) from exc

    def column(self, table: str, column: str) -> set[str]:
        values = self._tables[table].to_arrow().select([column]).column(column).to_pylist()
        return {v for v in values if v is not None}

    def load(self, table: str) -> tuple[list[Record], np.ndarray]:
        """Every row of a table (without vector) and the vectors, in storage order."""
        return self._rows(table, self._tables[table].to_arrow())

    def changes(
        self,
        table: str,
        since: TableState | None,
        *,
        have: Callable[[str], bool],
        mirrored: Callable[[], set[str]] | None = None,
    ) -> tuple[TableState, RowChanges | None]:
        """What ``table`` holds now that it did not at ``since`` (None: ever), less
        the new rows whose id ``have`` says the mirror holds.

        Raises:
            StoreError: the table could not be read.
        """
        try:
            found = listing_changes(self._tables[table], since, have, mirrored)
            if found is None:
                assert since is not None
                return since, None
            state, gone, wanted = found
            fetched = take_rows(self._tables[table], wanted)
        except Exception as exc:
            raise StoreError(f"LanceDB could not read the {table} table: {exc}") from exc
        rows, vectors = self._rows(table, fetched)
        return state, RowChanges(gone, rows, vectors)

    def _rows(self, table: str, arrow: pa.Table) -> tuple[list[Record], np.ndarray]:
        if arrow.num_rows == 0:
            return [], np.zeros((0, self.dimension), dtype=np.float32)
        cols = {c: arrow.column(c).to_pylist() for c in COLUMNS[table]}
        rows = [{c: cols[c][i] for c in COLUMNS[table]} for i in range(arrow.num_rows)]
        vectors = (
            arrow.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        ).reshape(-1, self.dimension)
        return rows, np.asarray(vectors, dtype=np.float32)

    def count(self, table: str) -> int:
        return int(self._tables[table].count_rows())
