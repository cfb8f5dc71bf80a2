"""Opening a current graph writes nothing: a process that reads and then ends without
closing the store (killed, Ctrl-C) leaves no write-ahead log, which the next open
would take for an unfinished write and set aside with a warning (``kuzu_wal``)."""

from __future__ import annotations

import logging
from pathlib import Path

import kuzu

from recall_engine import RecallEngine
from recall_engine.storage import kuzu_migrate
from recall_engine.testing import DeterministicEmbedder


def _logs(graph: Path) -> list[Path]:
    return [p for p in graph.parent.glob(graph.name + ".*") if p.stat().st_size > 0]


async def test_a_reading_process_leaves_no_log_of_a_write(tmp_path: Path, caplog) -> None:
    first = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    await first.remember("Ann lives in Lyon.", dataset_name="ann")
    first.close()
    graph = tmp_path / "data" / "tenants" / "default" / "graph.kuzu"
    reader = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        (result,) = await reader.recall("Where does Ann live?", datasets=["ann"])
        assert "Lyon" in result.text
        assert _logs(graph) == []  # what a process ended here would leave
    finally:
        reader.close()
    with caplog.at_level(logging.WARNING):
        again = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
        await again.recall("Where does Ann live?", datasets=["ann"])
        again.close()
    assert "did not finish" not in caplog.text


def test_only_what_a_graph_lacks_is_created(tmp_path: Path) -> None:
    conn = kuzu.Connection(kuzu.Database(str(tmp_path / "g.kuzu")))
    assert kuzu_migrate.missing(conn, kuzu_migrate.SCHEMA) == kuzu_migrate.SCHEMA
    conn.execute(
        "CREATE NODE TABLE Event(id STRING PRIMARY KEY, text STRING, time STRING, "
        "time_text STRING, granularity STRING, data_id STRING, dataset_id STRING)"
    )
    needed = kuzu_migrate.missing(conn, kuzu_migrate.SCHEMA)
    assert "ALTER TABLE Event ADD IF NOT EXISTS valid_from STRING" in needed
    assert not any(s.startswith("CREATE NODE TABLE IF NOT EXISTS Event(") for s in needed)
    for statement in needed:
        conn.execute(statement)
    assert kuzu_migrate.missing(conn, kuzu_migrate.SCHEMA) == []
