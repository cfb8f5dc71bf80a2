"""``engine.facts()``: a subject's facts with their validity, through the public API."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.errors import DatasetNotFoundError, InvalidInputError

ANN = [
    ("a1", "2023-01-05T10:00:00", "I live in Lyon, near the old town."),
    ("a2", "2023-01-05T10:05:00", "I work as a nurse at the city hospital."),
    (
        "a3",
        "2024-03-01T09:00:00",
        "Big news: I moved to Paris last week, I live in Montmartre now.",
    ),
    ("a4", "2024-06-01T09:00:00", "I quit nursing and I am now a software developer at a startup."),
]


async def tell(engine, messages, dataset: str = "ann") -> list[str]:
    """Remember each message as its own conversation; return their data ids."""
    ids = []
    for mid, when, text in messages:
        convo = Conversation(messages=[Message(id=mid, speaker="Ann", text=text, timestamp=when)])
        result = await engine.remember(convo, dataset_name=dataset)
        ids += result.data_ids
    return ids


def view(facts):
    return {(f.predicate, f.object): f for f in facts}


async def test_a_later_statement_supersedes_and_current_ones_stay_current(engine):
    await tell(engine, ANN)
    facts = await engine.facts("Ann")
    by = view(facts)
    lyon, nurse = by[("lives_in", "Lyon")], by[("works_as", "nurse")]
    assert not lyon.current and lyon.valid_until == datetime(2024, 3, 1, 9)
    assert {(r.predicate, r.object) for r in lyon.superseded_by} == {
        ("moved_to", "Paris"),
        ("lives_in", "Montmartre"),
    }
    assert not nurse.current and nurse.valid_until == datetime(2024, 6, 1, 9)
    assert [(r.predicate, r.object) for r in nurse.superseded_by] == [
        ("is_a", "software developer")  # the new value; the end said with it is no fact
    ]
    assert not [f for f in facts if f.predicate.startswith("ended_")]
    for key in [("moved_to", "Paris"), ("lives_in", "Montmartre"), ("is_a", "software developer")]:
        assert by[key].current and by[key].valid_until is None
    assert lyon.valid_from == datetime(2023, 1, 5, 10)
    assert lyon.text is not None and "Lyon" in lyon.text
    assert [f.predicate for f in facts] == sorted(f.predicate for f in facts)
    current = await engine.facts("Ann", history=False)
    assert ("lives_in", "Lyon") not in view(current) and ("lives_in", "Montmartre") in view(current)


async def test_as_of_gives_the_facts_valid_then(engine):
    await tell(engine, ANN)
    then = view(await engine.facts("Ann", as_of="2023-06-01"))
    assert set(then) == {("lives_in", "Lyon"), ("works_as", "nurse")}
    assert view(await engine.facts("Ann", as_of=date(2023, 6, 1))) == then  # as recall() takes
    mid = view(await engine.facts("Ann", as_of=datetime(2024, 4, 1)))
    assert ("works_as", "nurse") in mid and ("lives_in", "Montmartre") in mid
    assert ("lives_in", "Lyon") not in mid


async def test_forgetting_the_later_statements_makes_the_earlier_current_again(engine):
    ids = await tell(engine, ANN)
    await engine.forget(data_id=ids[2:])
    by = view(await engine.facts("Ann"))
    assert set(by) == {("lives_in", "Lyon"), ("works_as", "nurse")}
    assert all(f.current and f.valid_until is None and not f.superseded_by for f in by.values())


async def test_a_statement_remembered_late_does_not_supersede_a_later_one(engine):
    await tell(engine, ANN[2:3])
    await tell(engine, ANN[0:1])  # said in 2023, remembered after the 2024 move
    by = view(await engine.facts("Ann"))
    assert not by[("lives_in", "Lyon")].current
    assert by[("lives_in", "Montmartre")].current


async def test_datasets_stay_separate(engine):
    await tell(engine, ANN[0:1], dataset="one")
    await tell(engine, ANN[2:3], dataset="two")
    one = await engine.facts("Ann", dataset_name="one")
    assert [(f.object, f.current) for f in one] == [("Lyon", True)]
    both = await engine.facts("Ann", datasets=["one", "two"])
    assert all(f.current for f in both) and len(both) == 3


async def test_bad_input_is_refused_clearly(engine):
    await tell(engine, ANN[0:1])
    with pytest.raises(InvalidInputError, match="subject"):
        await engine.facts("  ")
    with pytest.raises(InvalidInputError, match="NUL"):
        await engine.facts("Ann\x00")
    with pytest.raises(InvalidInputError, match="as_of"):
        await engine.facts("Ann", as_of="yesterday-ish")
    with pytest.raises(InvalidInputError, match="not both"):
        await engine.facts("Ann", dataset_name="ann", datasets=["ann"])
    with pytest.raises(DatasetNotFoundError):
        await engine.facts("Ann", dataset_name="nope")
    assert await engine.facts("Nobody") == []


async def test_chunk_validity_reads_each_chunks_facts(engine):
    await tell(engine, ANN)
    from recall_engine.read.store_reader import StoreReader

    store = engine.store()
    reader = StoreReader(store, tuple(store.datasets()))
    facts = await engine.facts("Ann")
    lyon = view(facts)[("lives_in", "Lyon")]
    assert lyon.chunk_id is not None
    validity = await reader.chunk_validity([lyon.chunk_id, "no-such-chunk"])
    assert list(validity) == [lyon.chunk_id]
    (fact,) = validity[lyon.chunk_id]
    assert fact.valid_until == datetime(2024, 3, 1, 9)
    assert fact.superseded_by_chunk == view(facts)[("lives_in", "Montmartre")].chunk_id


async def test_an_end_without_a_new_value_ends_the_fact(engine):
    await tell(engine, ANN[0:2])
    await tell(
        engine,
        [
            ("e1", "2024-02-01T09:00:00", "I don't live in Lyon anymore."),
            ("e2", "2024-02-02T09:00:00", "I quit nursing last month."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("lives_in", "Lyon")].valid_until == datetime(2024, 2, 1, 9)
    assert by[("works_as", "nurse")].valid_until == datetime(2024, 2, 2, 9)
    assert [r.predicate for r in by[("works_as", "nurse")].superseded_by] == ["ended_job"]
    assert set(by) == {("lives_in", "Lyon"), ("works_as", "nurse")}  # ends are no facts
    assert not any(f.current for f in by.values())
    assert await engine.facts("Ann", as_of="2024-03-01") == []


async def test_a_new_partner_supersedes_the_old_one_a_second_pet_does_not(engine):
    await tell(
        engine,
        [
            ("p1", "2023-01-05T10:00:00", "I'm dating Tom, we met at a party."),
            ("p2", "2023-01-06T10:00:00", "I have a beagle named Biscuit."),
            ("p3", "2024-01-05T10:00:00", "We broke up. I'm dating Sam now."),
            ("p4", "2024-01-06T10:00:00", "We adopted a new pet, I have a cat named Pepper now."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert not by[("dating", "Tom")].current and by[("dating", "Sam")].current
    assert by[("has_pet", "Biscuit")].current and by[("has_pet_cat", "Pepper")].current


async def test_an_end_of_a_former_home_leaves_the_current_home(engine):
    await tell(
        engine,
        [
            ("h1", "2023-01-05T10:00:00", "I live in Lyon, near the old town."),
            ("h2", "2024-03-01T10:00:00", "I moved to Paris last week."),
            ("h3", "2024-05-01T10:00:00", "I don't live in Lyon anymore, thank god."),
        ],
    )
    by = view(await engine.facts("Ann"))
    assert by[("moved_to", "Paris")].current
    assert by[("lives_in", "Lyon")].valid_until == datetime(2024, 3, 1, 10)


async def test_facts_read_before_a_write_are_not_served_after_it(engine):
    await tell(engine, ANN[:2])
    before = view(await engine.facts("Ann"))
    chunk = before[("lives_in", "Lyon")].chunk_id
    reader_validity = await engine.facts("Ann", history=False)  # read twice: kept per version
    assert ("lives_in", "Lyon") in view(reader_validity)
    await tell(engine, ANN[2:3])
    after = view(await engine.facts("Ann"))
    assert not after[("lives_in", "Lyon")].current
    assert after[("lives_in", "Lyon")].chunk_id == chunk
    assert after[("lives_in", "Montmartre")].current


async def test_facts_without_a_graph_snapshot_stop_scanning_the_graph(engine, monkeypatch):
    """A store only ever asked passage searches holds no graph snapshot: past
    ``PARTIAL_READS`` reads at one version, the facts come from the scope's
    relations read once (the same facts, in the same order), carried over a write that
    only adds, and read again after one that removes."""
    from recall_engine.read.adjacency import PARTIAL_READS, adjacency, current_adjacency
    from recall_engine.read.store_reader import StoreReader

    await tell(engine, ANN)
    await tell(engine, [("b1", "2023-02-01T10:00:00", "I live in Oslo.")], dataset="bob")
    store = engine.store()
    datasets = await engine.list_datasets()
    graph = store.graph
    scans: list[str] = []
    for name in ("edges_in_chunks", "edges_touching", "edges_from", "edges_of_datasets"):
        read = getattr(graph, name)

        def counted(*args, _read=read, _name=name, **kwargs):
            scans.append(_name)
            return _read(*args, **kwargs)

        monkeypatch.setattr(graph, name, counted)
    assert current_adjacency(store) is None
    facts = await engine.facts("Ann")
    own = [f for f in facts if f.dataset_id == datasets["ann"]]
    assert len(own) < len(facts)  # "I live in Oslo" is said in the other dataset
    chunks = list(dict.fromkeys(f.chunk_id for f in own if f.chunk_id))
    oslo = next(f.chunk_id for f in facts if f.dataset_id == datasets["bob"])
    assert len(chunks) > PARTIAL_READS and oslo
    ann = StoreReader(store, (datasets["ann"],))
    scans.clear()
    first = await ann.chunk_validity([chunks[0]])  # from the graph, a few relations
    rounds = [await ann.chunk_validity([c, oslo, "no-such-chunk"]) for c in chunks]
    assert rounds[0] == first and any(rounds)
    assert scans == ["edges_in_chunks"] * PARTIAL_READS + ["edges_of_datasets"]
    assert view(await ann.facts("Ann")) == view(own)  # from the same relations, in scope
    both = StoreReader(store, tuple(datasets.values()))
    wider = await both.chunk_validity([*chunks, oslo])
    assert wider == {c: v for r in rounds for c, v in r.items()} | {oslo: wider[oslo]}
    assert set(scans[PARTIAL_READS + 1 :]) == {"edges_in_chunks"}  # another scope: its own count

    await tell(engine, ANN[1:2], dataset="bob")  # a write elsewhere: carried over, no read
    scans.clear()
    assert await ann.chunk_validity(chunks[1:2]) == rounds[1]
    assert scans == []
    await engine.forget(data_id=(await tell(engine, ANN[3:4], dataset="bob"))[0])
    scans.clear()  # a forget: a few at a time again
    assert await StoreReader(store, (datasets["ann"],)).chunk_validity(chunks[2:3]) == rounds[2]
    assert set(scans) == {"edges_in_chunks"}
    adjacency(store)  # a graph search's snapshot: it reads every relation itself
    scans.clear()
    for _ in range(PARTIAL_READS + 1):
        await StoreReader(store, (datasets["ann"],)).facts("Ann")  # a new reader: no memo
    assert "edges_of_datasets" not in scans


async def test_records_carried_over_writes_are_the_graphs(engine, monkeypatch) -> None:
    """Without a graph snapshot, turns that change facts remembered one by one: after
    each, the scope's records carried over hold every relation as the graph now does,
    validity included, and only the subjects a turn spoke of were read again."""
    from recall_engine.read.adjacency import PARTIAL_READS, current_adjacency
    from recall_engine.read.store_reader import StoreReader

    changes = [
        *ANN,
        ("a5", "2024-07-01T09:00:00", "Bob moved to Bergen and works as a pilot."),
        ("a6", "2024-08-01T09:00:00", "I moved to Lyon again."),
    ]
    await tell(engine, changes[:1])
    store = engine.store()
    scope = tuple((await engine.list_datasets()).values())
    reader = StoreReader(store, scope)
    held = None
    for _ in range(PARTIAL_READS + 1):
        held = await reader._held_records()
    assert held is not None  # read whole once, past the partial reads
    full_reads: list[int] = []
    read_all = store.graph.edges_of_datasets
    monkeypatch.setattr(
        store.graph, "edges_of_datasets", lambda ds: full_reads.append(1) or read_all(ds)
    )
    for message in changes[1:]:
        await tell(engine, [message])
        assert current_adjacency(store) is None
        held = await StoreReader(store, scope)._held_records()
        graph = read_all(list(scope))
        assert held is not None and held.in_chunks([r.chunk_id for r in graph if r.chunk_id]) == [
            r for r in graph if r.chunk_id
        ]
        assert held.touching({r.source_id for r in graph}) == graph
    assert full_reads == []  # carried over every write, never read whole again
    ended = [r for r in graph if r.valid_until]
    assert len(ended) >= 2  # the moves and the new job ended earlier facts


async def test_facts_from_a_carried_snapshot_are_the_graphs(engine) -> None:
    """With a graph snapshot carried over each turn, a subject's facts and a chunk's
    validity come from the records it kept or read again, and equal those read from
    the graph itself (no snapshot), validity included."""
    from recall_engine.read import adjacency as snapshots
    from recall_engine.read import fact_reader
    from recall_engine.read.store_reader import StoreReader

    for message in ANN:
        await tell(engine, [message])
        store = engine.store()
        scope = tuple((await engine.list_datasets()).values())
        snapshot = snapshots.adjacency(store)  # carried over the write when one was held
        carried = await StoreReader(store, scope).facts("Ann")
        chunks = [f.chunk_id for f in carried if f.chunk_id]
        validity = await StoreReader(store, scope).chunk_validity(chunks)
        snapshots._CACHE.pop(store)  # no snapshot, nothing kept: read from the graph
        fact_reader._MEMO.pop(store)
        fact_reader._LAST.pop(store, None)
        assert snapshots.current_adjacency(store) is None
        plain = await StoreReader(store, scope).facts("Ann")
        assert [(f.id, f.valid_until, f.superseded_by) for f in carried] == [
            (f.id, f.valid_until, f.superseded_by) for f in plain
        ]
        assert validity == await StoreReader(store, scope).chunk_validity(chunks)
        snapshots.fill_records(store, snapshot)  # every record held, for the next write
        snapshots._CACHE[store] = (snapshots._version(store), snapshot)
    assert any(f.valid_until for f in plain)  # the moves ended earlier facts


async def test_records_kept_past_a_write_are_bounded_per_store(engine) -> None:
    from recall_engine.read import fact_reader
    from recall_engine.read.adjacency import Marks

    await tell(engine, ANN[:1])
    store = engine.store()
    held = fact_reader.ScopeRecords.of([], Marks.of(store))
    scopes = [(f"ds{i}",) for i in range(fact_reader.LAST_SCOPES + 3)]
    for scope in [*scopes, scopes[3]]:  # the fourth asked again: kept as the newest
        fact_reader._keep_last(store, scope, held)
    kept = fact_reader._last_records(store)
    assert len(kept) == fact_reader.LAST_SCOPES and list(kept)[-1] == scopes[3]
    assert scopes[0] not in kept and scopes[-1] in kept
