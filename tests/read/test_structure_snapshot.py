"""The structure snapshot (``read.adjacency``): its edges are the validated
``GraphEdge``s, and the relations ``triplets_by_id`` reads are kept with it, so
they are read from the graph once per snapshot and never outlive a write."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from recall_engine import Document
from recall_engine.core.hits import EntityRef
from recall_engine.read.adjacency import (
    PARTIAL_READS,
    adjacency,
    current_adjacency,
    records_in_chunks,
)
from recall_engine.read.api import GraphEdge
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.graph_reads import EdgeRecord

HOPPER = Document(text="Grace Hopper worked for Remington Rand in Philadelphia.", title="hopper")
CURIE = Document(text="Marie Curie worked for the University of Paris.", title="curie")


def count_graph_reads(store, monkeypatch) -> list[Sequence[str]]:
    """The ids of every ``edges_by_id`` call on ``store``'s graph, as made."""
    calls: list[Sequence[str]] = []
    read = store.graph.edges_by_id

    def counted(ids: Sequence[str], scope: Sequence[str]) -> list[EdgeRecord]:
        calls.append(list(ids))
        return read(ids, scope)

    monkeypatch.setattr(store.graph, "edges_by_id", counted)
    return calls


def relation_ids(store) -> list[str]:
    return [row["id"] for row in store.relation_index.rows(None)]


async def test_snapshot_edges_equal_validated_edges(engine) -> None:
    await engine.remember([HOPPER, CURIE], dataset_name="people")
    store = engine.store()
    snapshot = adjacency(store)
    assert snapshot.edges
    for row in store.relation_index.rows(None):
        edge = snapshot.edges[row["id"]]
        assert edge == GraphEdge(**{k: row[k] for k in GraphEdge.model_fields})
        assert edge.model_fields_set == set(GraphEdge.model_fields)


async def test_triplets_are_read_once_per_snapshot(engine, monkeypatch) -> None:
    await engine.remember([HOPPER, CURIE], dataset_name="people")
    store = engine.store()
    reader = StoreReader(store, list(store.datasets()))
    ids = relation_ids(store)
    assert len(ids) >= 2
    calls = count_graph_reads(store, monkeypatch)
    plain = await reader.triplets_by_id(ids)  # no snapshot yet: from the graph
    adjacency(store)
    first = await reader.triplets_by_id(ids)
    again = await reader.triplets_by_id(list(reversed(ids)))
    assert first == plain and again == list(reversed(plain))
    assert [sorted(c) for c in calls] == [sorted(ids), sorted(ids)]  # not a third time


async def test_kept_triplets_honour_the_readers_scope(engine) -> None:
    await engine.remember(HOPPER, dataset_name="a")
    await engine.remember(CURIE, dataset_name="b")
    store = engine.store()
    datasets = await engine.list_datasets()
    ids = relation_ids(store)
    adjacency(store)
    everything = await StoreReader(store, list(store.datasets())).triplets_by_id(ids)
    only_b = await StoreReader(store, [datasets["b"]]).triplets_by_id(ids)
    assert {t.dataset_id for t in everything} == {datasets["a"], datasets["b"]}
    assert only_b == [t for t in everything if t.dataset_id == datasets["b"]]


@pytest.mark.parametrize("write", ["forget", "remember"])
async def test_a_write_drops_the_kept_triplets(engine, monkeypatch, write) -> None:
    stored = await engine.remember(HOPPER, dataset_name="people")
    store = engine.store()
    reader = StoreReader(store, list(store.datasets()))
    ids = relation_ids(store)
    adjacency(store)
    assert await reader.triplets_by_id(ids)
    kept = current_adjacency(store)
    assert kept is not None and set(kept.records) == set(ids)
    if write == "forget":
        await engine.forget(data_id=stored.data_ids[0])
    else:
        await engine.remember(CURIE, dataset_name="people")
    assert current_adjacency(store) is None  # the write changed the version
    calls = count_graph_reads(store, monkeypatch)
    after = await reader.triplets_by_id(ids)
    assert calls == [ids]  # read from the graph again, not from the old snapshot
    assert [t.id for t in after] == ([] if write == "forget" else ids)
    rebuilt = adjacency(store)
    assert rebuilt is not kept and not rebuilt.records


def index_refs(store, scope: Sequence[str]) -> dict[str, EntityRef]:
    """The entity refs of ``scope`` read from the entity index, validated."""
    rows = store.entity_index.rows(list(scope))
    return {r["id"]: EntityRef(id=r["id"], name=r["name"], type=r["type"]) for r in rows}


async def test_entity_refs_are_kept_per_snapshot_and_honour_scope(engine) -> None:
    await engine.remember(HOPPER, dataset_name="a")
    await engine.remember(CURIE, dataset_name="b")
    store = engine.store()
    datasets = await engine.list_datasets()
    every = [row["id"] for row in store.entity_index.rows(None)]
    for scope in ([datasets["a"]], [datasets["b"]], list(store.datasets())):
        reader = StoreReader(store, scope)
        for asked in (every, list(reversed(every)), [*every[:2], "nope", every[0]]):
            found = await reader.entity_refs(asked)
            expected = index_refs(store, scope)
            assert list(found) == [e for e in dict.fromkeys(asked) if e in expected]
            assert found == {e: expected[e] for e in found}
    kept = current_adjacency(store)
    assert kept is not None and set(kept.refs) == set(every)
    await engine.remember(
        Document(text="Ada Lovelace wrote for Charles Babbage in London.", title="ada"),
        dataset_name="a",
    )
    reader = StoreReader(store, list(store.datasets()))
    after = await reader.entity_refs([row["id"] for row in store.entity_index.rows(None)])
    assert after == index_refs(store, list(store.datasets())) and len(after) > len(every)
    assert current_adjacency(store) is not kept


async def test_a_snapshot_read_often_reads_every_relation_once(engine, monkeypatch) -> None:
    ada = Document(text="Ada Lovelace wrote for Charles Babbage in London.", title="ada")
    await engine.remember([HOPPER, CURIE, ada], dataset_name="people")
    await engine.remember(
        Document(text="Alan Turing worked at Bletchley Park.", title="t"), dataset_name="b"
    )
    store = engine.store()
    everything = list(store.datasets())
    ids = relation_ids(store)
    assert len(ids) > PARTIAL_READS
    plain = {i: await StoreReader(store, everything).triplets_by_id([i]) for i in ids}
    snapshot = adjacency(store)
    calls = count_graph_reads(store, monkeypatch)
    full: list[Sequence[str]] = []
    read_all = store.graph.edges_of_datasets
    monkeypatch.setattr(
        store.graph, "edges_of_datasets", lambda ds: full.append(list(ds)) or read_all(ds)
    )
    reader = StoreReader(store, everything)
    for edge_id in [*ids, *ids]:
        assert await reader.triplets_by_id([edge_id]) == plain[edge_id]
    assert len(calls) == PARTIAL_READS and len(full) == 1 and snapshot.complete
    assert set(snapshot.records) == set(ids)
    chunks = sorted(snapshot.edges_of_chunk)
    for scope in (everything, everything[:1], []):
        for asked in (chunks, chunks[:1], [*chunks[1:], "nope"]):
            assert records_in_chunks(snapshot, asked, scope) == store.graph.edges_in_chunks(
                asked, scope
            )
