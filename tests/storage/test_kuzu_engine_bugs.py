"""Two Kuzu 0.11.3 storage bugs the adapter keeps away from the store (issue 35).

1. A checkpoint that finds every changed CSR region of a relationship node group
   empty drops the whole group: deleting an item whose chunks sit past the first
   1,024 chunk offsets took every MENTIONS edge of the tenant, other datasets'
   included (``kuzu_rel_guard``).
2. A ``STRING[]`` column updated in place hands rows appended later another row's
   list: an entity's lookup keys went wrong, the next ingest did not find it and
   inserted it again, "duplicated primary key" (``kuzu_entity_lists``).

Both are driven here through ``KuzuGraphStore`` with hand-made records, so the
sizes that reach Kuzu's thresholds cost no extraction.
"""

from __future__ import annotations

from pathlib import Path

import kuzu

from recall_engine.core.graph import Entity, EntityType, Mention
from recall_engine.storage.graph_records import GraphWrite
from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.storage.records import ChunkRecord, DataItemRecord

MENTIONS = "MATCH ()-[m:MENTIONS]->() RETURN count(m)"


def _item(dataset: str, name: str, chunks: int, entity: Entity | None):
    data_id = f"{dataset}-{name}"
    item = DataItemRecord(
        id=data_id,
        dataset_id=dataset,
        dataset_name=dataset,
        name=name,
        kind="text",
        content_hash=data_id,
        source_id=None,
        metadata={},
        created_at="",
        chunk_count=chunks,
    )
    records = [
        ChunkRecord(
            id=f"{data_id}-{i}",
            data_id=data_id,
            dataset_id=dataset,
            dataset_name=dataset,
            chunk_index=i,
            text=f"chunk {i}",
            document_name=name,
        )
        for i in range(chunks)
    ]
    graph = None
    if entity is not None:
        graph = GraphWrite(
            dataset_id=dataset,
            entities=(entity,),
            mentions=tuple(
                Mention(chunk_id=c.id, entity_id=entity.id, surface=entity.name) for c in records
            ),
            chunk_data={c.id: data_id for c in records},
            new_entity_ids=frozenset({entity.id}),
        )
    return [(dataset, dataset, "")], [item], records, graph


def _entity(dataset: str, name: str, type_: EntityType = EntityType.PERSON, **kw) -> Entity:
    return Entity.create(name, type_, namespace=f"t/{dataset}", **kw)


def _write(store: KuzuGraphStore, dataset: str, name: str, chunks: int, entity=None) -> str:
    datasets, items, records, graph = _item(dataset, name, chunks, entity)
    store.write_ingest(datasets, items, records, graph=graph)
    return items[0].id


def test_forgetting_items_past_the_first_region_keeps_other_datasets_mentions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "graph.kuzu"
    store = KuzuGraphStore(path)
    try:
        for i, name in enumerate(("Ada Lovelace", "Alan Turing", "Grace Hopper")):
            ds = "alpha" if i < 2 else "beta"
            _write(store, ds, f"note{i}", 1, _entity(ds, name))
        kept = store.execute(MENTIONS)[0][0]
        assert kept == 3
        # More chunks than a CSR leaf region (1,024), each mentioning one entity.
        big = _write(store, "junk", "big", 1100, _entity("junk", "Kurt Godel"))
        store.delete_data_items([big])
        assert store.execute(MENTIONS)[0][0] == kept
        # One chunk past offset 1,024 with a mention, forgotten: its region is empty again.
        small = _write(store, "junk", "small", 1, _entity("junk", "Emmy Noether"))
        store.delete_data_items([small])
        # The next COPY's commit checkpoints; before the fix every mention went there.
        _write(store, "junk", "secret", 1)
        assert store.execute(MENTIONS)[0][0] == kept
        store.execute("CHECKPOINT")
        assert store.execute(MENTIONS)[0][0] == kept
    finally:
        store.close()
    reopened = KuzuGraphStore(path)
    try:
        assert reopened.execute(MENTIONS)[0][0] == kept
        assert {e.name for e in reopened.entities()} == {
            "Ada Lovelace",
            "Alan Turing",
            "Grace Hopper",
        }
        assert all(reopened.mention_chunks([e.id for e in reopened.entities()]).values())
    finally:
        reopened.close()


def test_updated_entities_keep_their_keys_and_are_never_inserted_twice(tmp_path: Path) -> None:
    """Sessions alternate between two datasets; each names new entities and an
    earlier one again, with a new alias (an update of the stored row)."""
    store = KuzuGraphStore(tmp_path / "graph.kuzu")
    try:
        known: dict[str, list[Entity]] = {"a": [], "b": []}
        for session in range(30):
            ds = "ab"[session % 2]
            fresh = [
                _entity(ds, f"Place{session}x{i}", EntityType.PLACE, aliases=[f"P{session}{i}"])
                for i in range(3 + session * 7 % 30)
            ]
            again = [
                e.model_copy(update={"aliases": (*e.aliases, f"Alias{session}")})
                for e in known[ds][-10:]
            ]
            data_id = f"{ds}-s{session}"
            chunk = ChunkRecord(
                id=f"{data_id}-0",
                data_id=data_id,
                dataset_id=ds,
                dataset_name=ds,
                chunk_index=0,
                text="t",
                document_name="s",
            )
            item = DataItemRecord(
                id=data_id,
                dataset_id=ds,
                dataset_name=ds,
                name="s",
                kind="text",
                content_hash=data_id,
                source_id=None,
                metadata={},
                created_at="",
                chunk_count=1,
            )
            entities = (*fresh, *again)
            graph = GraphWrite(
                dataset_id=ds,
                entities=entities,
                mentions=tuple(
                    Mention(chunk_id=chunk.id, entity_id=e.id, surface=e.name) for e in entities
                ),
                chunk_data={chunk.id: data_id},
                new_entity_ids=frozenset(e.id for e in fresh),
            )
            store.write_ingest([(ds, ds, "")], [item], [chunk], graph=graph)
            known[ds] = [e for e in known[ds] if e.id not in {x.id for x in again}]
            known[ds] += [*again, *fresh]
            for name, entities_of in known.items():
                found = store.entity_candidates(name, [e.normalized_name for e in entities_of])
                assert {e.id: e.aliases for e in found} == {e.id: e.aliases for e in entities_of}, (
                    f"session {session}, dataset {name}"
                )
    finally:
        store.close()


def test_a_store_with_list_columns_is_converted_on_open(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    conn.execute(
        "CREATE NODE TABLE Entity(id STRING PRIMARY KEY, name STRING, normalized_name STRING, "
        "type STRING, namespace STRING, identifier STRING, description STRING, "
        "aliases STRING[], keys STRING[], first_seen STRING, last_seen STRING, "
        "dataset_id STRING)"
    )
    ada = _entity("a", "Ada Lovelace", aliases=["Countess of Lovelace"])
    conn.execute(
        "CREATE (:Entity {id: $id, name: $name, normalized_name: $norm, type: 'PERSON', "
        "namespace: 't/a', aliases: $aliases, keys: ['wrong'], dataset_id: 'a'})",
        {"id": ada.id, "name": ada.name, "norm": ada.normalized_name, "aliases": list(ada.aliases)},
    )
    conn.close()
    db.close()
    store = KuzuGraphStore(path)
    try:
        types = dict(store.execute("CALL table_info('Entity') RETURN name, type"))
        assert types["keys"] == "STRING" and types["aliases"] == "STRING"
        for key in ("lovelace", "ada lovelace", "countess of lovelace"):
            (found,) = store.entity_candidates("a", [key])
            assert found.id == ada.id and found.aliases == ada.aliases
        assert store.entity_candidates("a", ["wrong"]) == []
    finally:
        store.close()
    KuzuGraphStore(path).close()  # converted once: opening again changes nothing
