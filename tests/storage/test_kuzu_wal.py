"""``set_aside_unfinished_write``: a non-empty Kuzu log left at open is moved aside,
kept and reported; an empty one, or none, changes nothing."""

from __future__ import annotations

import logging

from recall_engine.storage.kuzu_wal import set_aside_unfinished_write


def test_an_unfinished_log_is_moved_aside_and_kept(tmp_path, caplog) -> None:
    graph = tmp_path / "acme" / "graph.kuzu"
    graph.parent.mkdir()
    graph.write_bytes(b"db")
    (tmp_path / "acme" / "graph.kuzu.wal").write_bytes(b"half a commit")
    (tmp_path / "acme" / "graph.kuzu.shadow").write_bytes(b"")
    with caplog.at_level(logging.WARNING):
        (moved,) = set_aside_unfinished_write(graph)
    assert moved.name.startswith("graph.kuzu.wal.unfinished-")
    assert moved.read_bytes() == b"half a commit"
    assert sorted(p.name for p in graph.parent.iterdir()) == sorted(
        ["graph.kuzu", "graph.kuzu.shadow", moved.name]
    )  # the empty shadow file stays: nothing was unfinished in it
    assert "tenant acme" in caplog.text and moved.name in caplog.text
    assert set_aside_unfinished_write(graph) == []  # nothing left to set aside


def test_a_store_without_a_log_is_left_alone(tmp_path, caplog) -> None:
    graph = tmp_path / "graph.kuzu"
    graph.write_bytes(b"db")
    with caplog.at_level(logging.WARNING):
        assert set_aside_unfinished_write(graph) == []
    assert [p.name for p in tmp_path.iterdir()] == ["graph.kuzu"] and caplog.text == ""
