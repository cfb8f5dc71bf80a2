"""The read connection keeps each read query's plan (``KuzuGraphStore.read``): a kept
plan answers what planning the query afresh answers, sees every write, and a kept
plan that fails is dropped and the query planned again."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_engine.core.errors import StoreError
from recall_engine.storage.kuzu_graph import PREPARED_CAP, KuzuGraphStore
from tests.storage.test_entity_key_map import _person, _write

NAMES = "MATCH (e:Entity) WHERE e.dataset_id IN $ds RETURN e.name ORDER BY e.name"


class _Broken:
    """A plan Kuzu refuses to run (what a plan made stale would do)."""


def test_a_kept_plan_answers_as_a_fresh_one_and_sees_each_write(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        _write(store, "a", "d1", [_person("a", "Ada Lovelace")])
        assert store.read(NAMES, {"ds": ["a"]}) == [["Ada Lovelace"]]
        assert NAMES in store._prepared
        _write(store, "a", "d2", [_person("a", "Grace Hopper")])
        _write(store, "b", "d3", [_person("b", "Alan Turing")])
        kept = store.read(NAMES, {"ds": ["a", "b"]})
        assert kept == [["Ada Lovelace"], ["Alan Turing"], ["Grace Hopper"]]
        assert store.read(NAMES, {"ds": []}) == []  # other values, other types: one plan
        store._prepared.clear()
        assert store.read(NAMES, {"ds": ["a", "b"]}) == kept
    finally:
        store.close()


def test_a_kept_plan_that_fails_is_planned_again(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        _write(store, "a", "d1", [_person("a", "Ada Lovelace")])
        store._prepared[NAMES] = _Broken()  # type: ignore[assignment]
        assert store.read(NAMES, {"ds": ["a"]}) == [["Ada Lovelace"]]
        assert NAMES not in store._prepared  # dropped; the next read plans it again
        assert store.read(NAMES, {"ds": ["a"]}) == [["Ada Lovelace"]]
        assert NAMES in store._prepared
    finally:
        store.close()


def test_a_query_kuzu_cannot_plan_fails_clearly_and_is_not_kept(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        with pytest.raises(StoreError, match="Kuzu query failed"):
            store.read("MATCH (e:NoSuchTable) RETURN e.name")
        assert not store._prepared
        for i in range(PREPARED_CAP + 5):  # distinct queries: the cache stays bounded
            assert store.read(f"RETURN {i} AS n") == [[i]]
        assert len(store._prepared) <= PREPARED_CAP
    finally:
        store.close()
