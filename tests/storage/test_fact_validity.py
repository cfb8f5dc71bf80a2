"""Facts' validity in every ``GraphStore``: a later statement of a subject's family
ends the earlier ones; deleting it restores them; old Kuzu stores gain the columns."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from recall_engine.core.graph import Entity, EntityType, Mention, Relation
from recall_engine.storage.graph_records import GraphWrite
from recall_engine.storage.records import ChunkRecord, DataItemRecord

ANN = Entity(id="e-ann", name="Ann", normalized_name="ann", type=EntityType.PERSON, namespace="ns")
PLACES = {
    name: Entity(
        id=f"e-{name.lower()}",
        name=name,
        normalized_name=name.lower(),
        type=EntityType.PLACE,
        namespace="ns",
    )
    for name in ("Lyon", "Paris", "Rome")
}


def _dataset(ds: str) -> tuple[str, str, str]:
    return (ds, f"name-{ds}", "2024-01-01T00:00:00")


def write(
    store: Any,
    data_id: str,
    place: str,
    when: str,
    *,
    ds: str = "ds1",
    family: str = "home",
    past: bool = False,
) -> None:
    """One item whose one chunk says Ann lives in ``place``, stated at ``when`` (or,
    ``past``, that she used to: no start, held until ``when``)."""
    cid = f"c-{data_id}"
    item = DataItemRecord(
        id=data_id, dataset_id=ds, dataset_name=f"name-{ds}", name=data_id, kind="text",
        content_hash=f"h-{data_id}", source_id=None, metadata={}, created_at=when, chunk_count=1,
    )  # fmt: skip
    chunk = ChunkRecord(
        id=cid, data_id=data_id, dataset_id=ds, dataset_name=f"name-{ds}", chunk_index=0,
        text=f"I live in {place}.", document_name=data_id,
    )  # fmt: skip
    target = PLACES[place]
    relation = Relation(
        id=f"r-{data_id}", source_id=ANN.id, target_id=target.id, predicate="lives_in",
        raw_predicate="live in", context=f"Ann: I live in {place}.", confidence=0.8,
        chunk_id=cid, namespace="ns", family=family,
        valid_from=None if past else datetime.fromisoformat(when),
        valid_until=datetime.fromisoformat(when) if past else None,
    )  # fmt: skip
    known = {e.id for e in store.entities()}
    entities = (ANN, target)
    graph = GraphWrite(
        dataset_id=ds,
        entities=entities,
        relations=(relation,),
        mentions=tuple(Mention(chunk_id=cid, entity_id=e.id, surface=e.name) for e in entities),
        chunk_data={cid: data_id},
        new_entity_ids=frozenset(e.id for e in entities if e.id not in known),
    )
    store.write_ingest([_dataset(ds)], [item], [chunk], graph=graph)


def validity(store: Any, ds: str = "ds1") -> dict[str, tuple[str | None, str | None]]:
    """Relation id -> (valid_until, superseded_by)."""
    edges = store.edges_touching([ANN.id], [ds])
    return {e.id: (e.valid_until, e.superseded_by) for e in edges}


def test_a_later_statement_ends_the_earlier_one_and_forgetting_it_restores(graph_store):
    write(graph_store, "d1", "Lyon", "2023-01-05T10:00:00")
    write(graph_store, "d2", "Paris", "2024-03-01T09:00:00")
    assert validity(graph_store) == {
        "r-d1": ("2024-03-01T09:00:00", "r-d2"),
        "r-d2": (None, None),
    }
    edge = next(e for e in graph_store.edges_by_id(["r-d1"], ["ds1"]))
    assert (edge.valid_from, edge.family, edge.superseded_by_chunk) == (
        "2023-01-05T10:00:00",
        "home",
        "c-d2",
    )
    graph_store.delete_data_items(["d2"])
    assert validity(graph_store) == {"r-d1": (None, None)}


def test_statement_time_orders_facts_not_ingest_order(graph_store):
    write(graph_store, "d2", "Paris", "2024-03-01T09:00:00")
    write(graph_store, "d1", "Lyon", "2023-01-05T10:00:00")  # remembered late, said earlier
    assert validity(graph_store) == {
        "r-d1": ("2024-03-01T09:00:00", "r-d2"),
        "r-d2": (None, None),
    }


def test_forgetting_the_middle_lets_the_last_supersede_the_first(graph_store):
    write(graph_store, "d1", "Lyon", "2023-01-05T10:00:00")
    write(graph_store, "d2", "Paris", "2024-03-01T09:00:00")
    write(graph_store, "d3", "Rome", "2025-01-01T09:00:00")
    assert validity(graph_store)["r-d2"] == ("2025-01-01T09:00:00", "r-d3")
    graph_store.delete_data_items(["d2"])
    assert validity(graph_store) == {
        "r-d1": ("2025-01-01T09:00:00", "r-d3"),
        "r-d3": (None, None),
    }


def test_supersession_stays_inside_a_dataset(graph_store):
    write(graph_store, "d1", "Lyon", "2023-01-05T10:00:00", ds="ds1")
    write(graph_store, "d2", "Paris", "2024-03-01T09:00:00", ds="ds2")
    assert validity(graph_store, "ds1") == {"r-d1": (None, None)}
    assert validity(graph_store, "ds2") == {"r-d2": (None, None)}


def test_a_past_fact_keeps_its_end_and_ends_only_its_own_value(graph_store):
    write(graph_store, "d1", "Paris", "2023-01-05T10:00:00")
    write(graph_store, "d2", "Lyon", "2024-03-01T09:00:00", past=True)  # "I used to live in Lyon"
    assert validity(graph_store) == {
        "r-d1": (None, None),
        "r-d2": ("2024-03-01T09:00:00", None),
    }
    write(graph_store, "d3", "Paris", "2024-06-01T09:00:00", past=True)
    assert validity(graph_store)["r-d1"] == ("2024-06-01T09:00:00", "r-d3")
    graph_store.delete_data_items(["d3"])
    assert validity(graph_store)["r-d1"] == (None, None)
    assert validity(graph_store)["r-d2"] == ("2024-03-01T09:00:00", None)


def test_a_family_of_several_values_keeps_them_all(graph_store):
    write(graph_store, "d1", "Lyon", "2023-01-05T10:00:00", family="pet")
    write(graph_store, "d2", "Paris", "2024-03-01T09:00:00", family="pet")
    assert validity(graph_store) == {"r-d1": (None, None), "r-d2": (None, None)}


def test_an_old_kuzu_store_gains_the_validity_columns(tmp_path):
    import kuzu

    from recall_engine.storage.kuzu_graph import KuzuGraphStore

    path = tmp_path / "graph.kuzu"
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    conn.execute(
        "CREATE NODE TABLE Entity(id STRING PRIMARY KEY, name STRING, normalized_name STRING, "
        "type STRING, namespace STRING, identifier STRING, description STRING, "
        "aliases STRING[], keys STRING[], first_seen STRING, last_seen STRING, "
        "dataset_id STRING)"
    )
    conn.execute(  # the RELATES table as stores made before facts had time hold it
        "CREATE REL TABLE RELATES(FROM Entity TO Entity, id STRING, predicate STRING, "
        "raw_predicate STRING, context STRING, confidence DOUBLE, time_text STRING, "
        "timestamp STRING, granularity STRING, chunk_id STRING, data_id STRING, "
        "dataset_id STRING)"
    )
    conn.execute(
        "CREATE (:Entity {id: 'e-ann', name: 'Ann', normalized_name: 'ann', type: 'PERSON', "
        "namespace: 'ns', "
        "dataset_id: 'ds1'})-[:RELATES {id: 'r-old', predicate: 'lives_in', confidence: 0.8, "
        "dataset_id: 'ds1', chunk_id: 'c-old'}]->(:Entity {id: 'e-lyon', name: 'Lyon', "
        "normalized_name: 'lyon', "
        "type: 'PLACE', namespace: 'ns', dataset_id: 'ds1'})"
    )
    conn.execute(  # the Event table as stores made before events had validity hold it
        "CREATE NODE TABLE Event(id STRING PRIMARY KEY, text STRING, time STRING, "
        "time_text STRING, granularity STRING, chunk_id STRING, data_id STRING, "
        "dataset_id STRING, namespace STRING)"
    )
    conn.close()
    db.close()

    store = KuzuGraphStore(path)
    try:
        (edge,) = store.edges_touching(["e-ann"], ["ds1"])
        assert (edge.id, edge.valid_from, edge.valid_until, edge.family) == (
            "r-old",
            None,
            None,
            None,
        )
        write(store, "d2", "Paris", "2024-03-01T09:00:00")
        # the old fact has no time and no family: it is never superseded
        assert validity(store)["r-old"] == (None, None)
        (columns,) = store._conn.execute(
            "CALL TABLE_INFO('Event') WITH * WHERE name = 'valid_from' RETURN count(*)"
        ).get_all()
        assert columns == [1]
    finally:
        store.close()
