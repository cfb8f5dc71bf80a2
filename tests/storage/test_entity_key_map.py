"""Kuzu's lookups by entity key, served from the key map of the current commit
generation (``storage.entity_key_map``): the same answers as a Cypher scan of the
entity table, and never an answer from before the last write."""

from __future__ import annotations

import random
from pathlib import Path

from recall_engine.core.graph import Entity, EntityType, Mention
from recall_engine.storage.graph_records import GraphWrite
from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.storage.records import ChunkRecord, DataItemRecord

FIRST = ["Ada", "Alan", "Grace", "Emmy", "Kurt", "Rosa"]
LAST = ["Lovelace", "Turing", "Hopper", "Noether", "Gödel", "Parks"]


def _write(store: KuzuGraphStore, dataset: str, data_id: str, entities: list[Entity]) -> None:
    chunk = ChunkRecord(
        id=f"{data_id}-0", data_id=data_id, dataset_id=dataset, dataset_name=dataset,
        chunk_index=0, text="t", document_name="d",
    )  # fmt: skip
    item = DataItemRecord(
        id=data_id, dataset_id=dataset, dataset_name=dataset, name="d", kind="text",
        content_hash=data_id, source_id=None, metadata={}, created_at="", chunk_count=1,
    )  # fmt: skip
    known = {e.id for e in store.entities([dataset])}
    graph = GraphWrite(
        dataset_id=dataset,
        entities=tuple(entities),
        mentions=tuple(
            Mention(chunk_id=chunk.id, entity_id=e.id, surface=e.name) for e in entities
        ),
        chunk_data={chunk.id: data_id},
        new_entity_ids=frozenset(e.id for e in entities if e.id not in known),
    )
    store.write_ingest([(dataset, dataset, "")], [item], [chunk], graph=graph)


def _person(dataset: str, name: str, *aliases: str) -> Entity:
    return Entity.create(name, EntityType.PERSON, namespace=f"t/{dataset}", aliases=aliases)


def test_a_lookup_made_before_a_write_is_not_served_after_it(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        _write(store, "a", "d1", [_person("a", "Ada Lovelace")])
        assert [e.name for e in store.entities_by_keys(["lovelace"], ["a"])] == ["Ada Lovelace"]
        _write(store, "a", "d2", [_person("a", "Byron Lovelace", "Lord Byron")])
        found = store.entities_by_keys(["lovelace", "lord byron"], ["a"])
        assert sorted(e.name for e in found) == ["Ada Lovelace", "Byron Lovelace"]
        store.delete_data_items(["d1"])  # Ada was mentioned by d1 alone
        assert [e.name for e in store.entities_by_keys(["lovelace"], ["a"])] == ["Byron Lovelace"]
        store.delete_data_items(["d2"])
        assert store.entities_by_keys(["lovelace"], ["a"]) == []
    finally:
        store.close()


def test_lookups_return_what_a_scan_of_the_entity_table_returns(tmp_path: Path) -> None:
    """Random writes, alias updates and forgets over two datasets; after each, every
    key asked (names, surnames, aliases, unknown and empty) in every scope."""
    rng = random.Random(7)
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    written: list[str] = []
    try:
        for step in range(6):
            dataset = "ab"[step % 2]
            if written and step % 3 == 2:
                store.delete_data_items([written.pop(rng.randrange(len(written)))])
            else:
                people = [
                    _person(dataset, f"{rng.choice(FIRST)} {rng.choice(LAST)}", f"Alias{step}")
                    for _ in range(rng.randint(1, 4))
                ]
                written.append(f"{dataset}-{step}")
                _write(store, dataset, written[-1], list({p.id: p for p in people}.values()))
            keys = [
                *(f"{f} {n}".lower() for f in FIRST for n in LAST),
                *(n.lower() for n in LAST),
                *(f"alias{i}" for i in range(step + 1)),
                "nobody",
                "",
            ]
            for scope in (["a"], ["b"], ["a", "b"], ["c"]):
                asked = rng.sample(keys, 12)
                assert store.entities_by_keys(asked, scope) == store.entities_by_keys_scan(
                    asked, scope
                ), f"step {step}, scope {scope}, keys {asked}"
    finally:
        store.close()


def test_a_write_hands_its_entities_to_the_next_map(tmp_path: Path, monkeypatch) -> None:
    """After a lookup, an ingest's commit carries the map over with the entities it
    wrote (updates included) and a replace's orphans left out: later lookups read no
    entity table, and answer as its scan does. A forget builds the map again."""
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    builds: list[int] = []
    build = store._build_key_map

    def counted():
        builds.append(store.generation)
        return build()

    monkeypatch.setattr(store, "_build_key_map", counted)
    keys = ["ada lovelace", "lovelace", "lord byron", "byron lovelace", "grace hopper", "hopper"]
    try:
        _write(store, "a", "d1", [_person("a", "Ada Lovelace")])
        assert len(store.entities_by_keys(keys, ["a"])) == 1 and builds == [1]
        _write(store, "a", "d2", [_person("a", "Byron Lovelace"), _person("a", "Grace Hopper")])
        _write(store, "a", "d3", [_person("a", "Byron Lovelace", "Lord Byron")])  # written again
        for scope in (["a"], ["b"], ["a", "b"]):
            assert store.entities_by_keys(keys, scope) == store.entities_by_keys_scan(keys, scope)
        assert len(store.entities_by_keys(["lovelace"], ["a"])) == 2
        assert builds == [1]  # carried over two commits, never read whole again
        store.delete_data_items(["d1"])
        assert store.entities_by_keys(["ada lovelace"], ["a"]) == []
        assert builds == [1, 4]
    finally:
        store.close()


def test_a_map_that_cannot_be_carried_over_is_built_again(tmp_path: Path, monkeypatch) -> None:
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        _write(store, "a", "d1", [_person("a", "Ada Lovelace")])
        assert len(store.entities_by_keys(["lovelace"], ["a"])) == 1

        def broken(self, rows, gone=()):
            raise RuntimeError("no")

        monkeypatch.setattr("recall_engine.storage.entity_key_map.KeyMap.updated", broken)
        _write(store, "a", "d2", [_person("a", "Byron Lovelace")])  # the write stands
        monkeypatch.undo()
        found = store.entities_by_keys(["lovelace"], ["a"])
        assert sorted(e.name for e in found) == ["Ada Lovelace", "Byron Lovelace"]
    finally:
        store.close()
