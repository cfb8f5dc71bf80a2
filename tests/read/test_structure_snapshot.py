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
from recall_engine.read.name_table import NameTable
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
async def test_a_write_reads_the_kept_triplets_again(engine, monkeypatch, write) -> None:
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
    assert rebuilt is not kept
    # a forget reads the snapshot whole; an ingest keeps the records it could not
    # change (Curie's facts are not Hopper's)
    assert set(rebuilt.records) == (set() if write == "forget" else set(ids))


ANN_SAYS = [
    ("2023-01-05T10:00:00", "I live in Lyon, near the old town."),
    ("2023-01-05T10:05:00", "I work as a nurse at the city hospital."),
    ("2023-02-01T10:00:00", "Bob lives in Oslo and works as a pilot."),
    ("2024-03-01T09:00:00", "Big news: I moved to Paris last week, I live in Montmartre now."),
    ("2024-06-01T09:00:00", "I quit nursing and I am now a software developer at a startup."),
    ("2024-07-01T09:00:00", "Bob moved to Bergen."),
]


async def test_records_carried_over_a_write_are_the_graphs(engine) -> None:
    """Facts that change (a new home ends the old one's validity) in turns remembered one
    by one: after each, the snapshot carried over holds every relation as the graph
    holds it now, validity included, having read only what the write could change."""
    from recall_engine import Conversation, Message
    from recall_engine.read.adjacency import fill_records

    store, kept = None, []
    for at, (when, text) in enumerate(ANN_SAYS):
        message = Message(id=f"m{at}", speaker="Ann", text=text, timestamp=when)
        await engine.remember(Conversation(messages=[message]), dataset_name="ann")
        store = engine.store()
        everything = list(store.datasets())
        snapshot = adjacency(store)
        carried = len(snapshot.records)
        fill_records(store, snapshot)
        graph = {r.id: r for r in store.graph.edges_of_datasets(everything)}
        assert snapshot.complete and snapshot.records == graph, text
        kept.append(0 < carried < len(graph))
    assert store is not None and any(kept)  # kept the rest, read what a turn changed
    ended = [r for r in snapshot.records.values() if r.valid_until]
    assert ended  # the moves ended earlier homes: their records show it


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


async def test_structure_reads_of_a_scope_holding_every_dataset_skip_no_row(engine) -> None:
    """A scope that holds every dataset of the snapshot reads without a per-item
    scope test; what it reads equals what the tested path reads, and a narrower
    scope still keeps the other dataset's rows out."""
    await engine.remember(HOPPER, dataset_name="a")
    await engine.remember(CURIE, dataset_name="b")
    store = engine.store()
    datasets = await engine.list_datasets()
    snapshot = adjacency(store)
    assert snapshot.datasets == {datasets["a"], datasets["b"]}
    chunks = list(snapshot.entities_of_chunk)
    entities = sorted(snapshot.entity_dataset)

    async def reads(reader: StoreReader) -> tuple:
        return (
            await reader.edges_of(entities),
            await reader.edges_in_chunks(chunks),
            await reader.mentions(entities),
            await reader.mentioned_in(chunks),
            sorted(await reader.synonym_pairs(entities)),
            await reader.named_in("Grace Hopper met Marie Curie", entities),
        )

    for scope in ([datasets["a"]], [datasets["b"]], [datasets["a"], datasets["b"]]):
        reader = StoreReader(store, scope)
        assert reader._covers(snapshot) == (len(scope) == 2)
        fast = await reads(reader)
        snapshot.datasets = None  # not worked out: every item is tested
        assert await reads(reader) == fast
        snapshot.datasets = frozenset(datasets.values())
        edges, _, mentions, mentioned, _, named = fast
        assert {e.dataset_id for e in edges} == set(scope)
        assert {snapshot.entity_dataset[e] for e in mentions} == set(scope)
        assert {snapshot.entity_dataset[e] for es in mentioned.values() for e in es} == set(scope)
        assert {snapshot.entity_dataset[e] for e in named} == set(scope)


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


STRUCTURE = (
    "edges",
    "edges_of_entity",
    "edges_of_chunk",
    "chunks_of_entity",
    "entities_of_chunk",
    "entity_dataset",
)


def assert_same_structure(got, whole) -> None:
    """Equal maps with every list in the same order (readers walk them in order)."""
    for name in STRUCTURE:
        ours, theirs = getattr(got, name), getattr(whole, name)
        assert ours == theirs, name
        assert all(list(ours[k]) == list(theirs[k]) for k in ours), name


def names_of(table) -> tuple:
    return table.key_of, table.by_key, table.shorter, table.partners, table.keys


def spy_mention_reads(store, monkeypatch) -> list:
    """The ``chunk_ids`` argument of every ``mention_links`` call (None: all)."""
    calls: list = []
    read = store.graph.mention_links

    def counted(chunk_ids=None):
        calls.append(None if chunk_ids is None else sorted(chunk_ids))
        return read(chunk_ids)

    monkeypatch.setattr(store.graph, "mention_links", counted)
    return calls


TURNS = [
    ("Ann", "I moved to Lyon with Bob Stone last spring."),
    ("Bob", "Ann Stone and I visited Grace Hopper's old office in Lyon."),
    ("Ann", "Bob Stone met Marie Curie's biographer at the Lyon library."),
    ("Bob", "Ann, Grace and I are going to Paris next week."),
]


async def test_a_write_that_only_adds_extends_the_snapshot(engine, monkeypatch) -> None:
    """Each write that only adds (documents, turns that name known people again) gives
    a snapshot read on from the last one, mentions of its new chunks only, equal to one
    read whole, name table included; the one it came from is left as it was."""
    from recall_engine import Conversation, Message
    from recall_engine.read.adjacency import _build, name_table

    await engine.remember([HOPPER, CURIE], dataset_name="people")
    store = engine.store()
    calls = spy_mention_reads(store, monkeypatch)
    first = adjacency(store)
    frozen = {name: repr(getattr(first, name)) for name in STRUCTURE}
    name_table(store, first)
    assert calls == [None]
    for at, (speaker, text) in enumerate(TURNS):
        calls.clear()
        before = set(store.index.vectors.live_ids())
        when = f"2024-03-0{at + 1}T10:00:00"
        message = Message(speaker=speaker, text=text, timestamp=when)
        await engine.remember(Conversation(messages=[message]), dataset_name="people")
        added = sorted(set(store.index.vectors.live_ids()) - before)
        snapshot = adjacency(store)
        assert calls == [added]  # the new chunks' mentions, not every mention again
        assert snapshot.marks is not None and not snapshot.records
        assert_same_structure(snapshot, _build(store))
        assert snapshot.datasets == _build(store).datasets == set(store.datasets())
        assert names_of(name_table(store, snapshot)) == names_of(
            NameTable.build((r["id"], r["name"], r["dataset_id"]) for r in entity_rows(store))
        )
    assert {name: repr(getattr(first, name)) for name in STRUCTURE} == frozen


def entity_rows(store) -> list:
    return store.entity_index.rows(None)


@pytest.mark.parametrize("write", ["forget", "replace"])
async def test_a_write_that_removes_reads_the_snapshot_whole(engine, monkeypatch, write) -> None:
    from recall_engine.read.adjacency import _build

    hopper = Document(text=HOPPER.text, title="hopper", source_id="bio/hopper")
    stored = await engine.remember([hopper, CURIE], dataset_name="people")
    store = engine.store()
    adjacency(store)
    calls = spy_mention_reads(store, monkeypatch)
    if write == "forget":
        await engine.forget(data_id=stored.data_ids[0])
    else:  # a new version of the same source replaces the old one
        text = "Grace Hopper taught at Vassar College."
        await engine.remember(
            Document(text=text, title="hopper", source_id="bio/hopper"), dataset_name="people"
        )
    snapshot = adjacency(store)
    assert calls == [None]
    assert_same_structure(snapshot, _build(store))
