"""Taking deleted rows out of a LanceDB table's files, after a ``forget``.

A LanceDB delete only marks rows deleted: their values stay in the data files, and
every older table version keeps the files it was made of, until the table is
compacted and its old versions are cleaned up. ``purge_deleted`` does both for a
table that one process holds alone (a store in the data dir, under its lock): the
fragments that hold deleted rows are written again without them, and every file
that only older versions used is deleted.

Cost: each call rewrites the fragments that held deleted rows. Compaction writes
fragments of about ``FRAGMENT_ROWS`` rows (up to twice that where it merges small
ones), so once a table has been purged a forget rewrites about that many rows per
fragment its items had rows in; the first call also merges the small fragments
ingests wrote, and splits a bigger one (from one large ingest) that holds a deleted
row. A table with nothing deleted and nothing to
merge costs a version check.
"""

from __future__ import annotations

import warnings
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lancedb.table import Table

FRAGMENT_ROWS = 2048
"""Rows per fragment that compaction aims at: what a forget rewrites per fragment that
held its rows (with sentence vectors a chunk row is several kilobytes)."""


def purge_deleted(table: Table) -> None:
    """Rewrite the fragments of ``table`` that hold deleted rows, and delete the
    files of every version but the latest.

    Only for a table no other process reads or writes: a reader of an older
    version would find its files gone.

    Raises:
        Exception: the error LanceDB raised; the table is unchanged or compacted,
            never damaged (each step is its own commit).
    """
    with warnings.catch_warnings():
        # LanceDB warns that other readers of old versions would fail: there are none.
        warnings.simplefilter("ignore", UserWarning)
        table.optimize(
            cleanup_older_than=timedelta(0),
            compaction_options={
                "materialize_deletions": True,
                "materialize_deletions_threshold": 0.0,
                "target_rows_per_fragment": FRAGMENT_ROWS,
            },
        )


def drop_text_indexes(table: Table) -> None:
    """Drop the full-text index stores made before 2026-12-07 kept on the chunks' text
    (no read used it; a purge would otherwise rewrite it each time)."""
    for index in table.list_indices():
        if "text" in index.columns:
            table.drop_index(index.name)
