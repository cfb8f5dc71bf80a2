"""What changed in a LanceDB table since a mirror was last filled from it, found
by row id: one version request when nothing changed; otherwise a scan of the row
ids (and the ``id`` column) and a fetch of the new rows only.

Another process's writes reach a process's in-memory mirrors this way (the
chunks table, and the graph tables when the graph is shared). A row deleted and
written again under the same id comes back in both ``gone`` and the fetched
rows; the caller drops, then adds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

TAKE_BATCH = 2000  # row ids fetched per request when a mirror catches up


@dataclass(frozen=True)
class TableState:
    """What a mirror was last filled from: the table version and its rows
    (LanceDB row id -> the row's ``id``)."""

    version: int
    rows: Mapping[int, str]


@dataclass(frozen=True)
class RowChanges:
    """The ids whose rows left the table, and the rows to (re)add, in storage order
    (with their ``_rowid`` column)."""

    gone: frozenset[str]
    fetched: pa.Table


def row_changes(
    table: Any, since: TableState | None, *, have: Callable[[str], bool] = lambda _: False
) -> tuple[TableState, RowChanges | None]:
    """What ``table`` holds now that it did not at ``since`` (None: ever), less the
    new rows whose id ``have`` says the mirror holds (this process's own writes).

    Raises whatever LanceDB raises; the caller names the table in its error.
    """
    version = int(table.version)
    if since is not None and version == since.version:
        return since, None
    listing = table.search().with_row_id(True).select(["id"]).limit(None).to_arrow()
    rows = dict(
        zip(listing.column("_rowid").to_pylist(), listing.column("id").to_pylist(), strict=True)
    )
    old = since.rows if since is not None else {}
    gone = frozenset(old[r] for r in old.keys() - rows.keys())
    wanted = sorted(r for r, rid in rows.items() if rid in gone or (r not in old and not have(rid)))
    parts = [
        table.take_row_ids(wanted[at : at + TAKE_BATCH]).with_row_id().to_arrow()
        for at in range(0, len(wanted), TAKE_BATCH)
    ]
    fetched = pa.concat_tables(parts) if parts else table.schema.empty_table()
    if fetched.num_rows:
        fetched = fetched.sort_by("_rowid")
    return TableState(version, rows), RowChanges(gone, fetched)
