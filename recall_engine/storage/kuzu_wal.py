"""A write that a killed process left unfinished in Kuzu's write-ahead log.

Kuzu 0.11.3 checkpoints each of ``KuzuGraphStore``'s writes as it commits (measured:
no log is left after a commit of 1 to 150 documents, nor after the deletions, which
checkpoint themselves), so the graph's write-ahead log (``graph.kuzu.wal``) is empty
between writes, and a log found when the graph is opened is a write whose process
was killed before it finished (and before ``remember()`` or ``forget()`` returned).
Kuzu 0.11.3 replays some such logs into an assertion failure, or a segmentation
fault, on every later open (a process killed while a large ingest commits), which
would lock the data dir for good. ``set_aside_unfinished_write`` moves the log aside
before Kuzu opens the graph, so it opens at its last finished write; the vector rows
of the unfinished write are then swept as leftovers by the store's open.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

LOG_SUFFIXES = (".wal", ".shadow")
"""Kuzu's files beside a database file: its write-ahead log and its checkpoint's shadow pages."""


def set_aside_unfinished_write(graph: Path) -> list[Path]:
    """Move the non-empty write-ahead files of ``graph`` (``LOG_SUFFIXES``) aside, as
    ``<name>.unfinished-<UTC time>``, with a warning; call it only while holding the
    data dir (``store_lock``), before the graph is opened.

    Args:
        graph: the Kuzu database file.

    Returns:
        Where each file was moved (empty: nothing was unfinished).
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    moved = []
    for suffix in LOG_SUFFIXES:
        found = graph.with_name(graph.name + suffix)
        if found.is_file() and found.stat().st_size > 0:
            aside = found.with_name(f"{found.name}.unfinished-{stamp}")
            found.rename(aside)
            moved.append(aside)
    if moved:
        log.warning(
            "tenant %s: the graph's last write did not finish (its process ended during "
            "it); the graph opens at the write before it, and the unfinished log is kept "
            "as %s",
            graph.parent.name,
            ", ".join(p.name for p in moved),
        )
    return moved
