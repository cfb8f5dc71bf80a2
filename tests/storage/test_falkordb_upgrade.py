"""A tenant graph that FalkorDB kept from before facts had time opens with this
version and knows what is true now: its facts get the times Kuzu's upgrade gives
the same facts, a move stated after the upgrade ends the old home, the graph is
scanned once, and dating cut short, or done meanwhile by another replica, ends
the same. Against a real FalkorDB server (``falkordb_live``); the old graph is
written as that version wrote it (``old_falkordb_layout``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.core.errors import StoreError
from recall_engine.core.graph import ChunkExtraction
from recall_engine.graph.supersession import stamp
from recall_engine.storage import falkordb_fact_times
from recall_engine.storage.fact_times import UNDATED_FACTS
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.testing import DeterministicEmbedder
from tests.storage import falkordb_live, old_falkordb_layout, old_layout

FACTS = (
    "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name, r.predicate, b.name, "
    "r.valid_from, r.valid_until, r.family, r.superseded_by IS NOT NULL "
    "ORDER BY a.name, r.predicate"
)
EVENTS = "MATCH (v:Event) RETURN v.id, v.valid_from ORDER BY v.id"


@pytest.fixture
def server() -> Iterator[FalkorServer]:
    """A client of the session's server, with graph names of its own."""
    client = FalkorServer(falkordb_live.server().url())
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def old_graph(server: FalkorServer) -> str:
    """The store name of a tenant graph in the old layout, never opened by this version."""
    name = uuid.uuid4().hex[:12]
    old_falkordb_layout.write_graph(server.writes.select_graph(server.graph_name(name)))
    return name


@pytest.fixture(scope="module")
def on_kuzu(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, list]:
    """The same old facts and events in Kuzu, as its upgrade dates them."""
    data = tmp_path_factory.mktemp("kuzu") / "data"
    root = old_layout.build(data, DeterministicEmbedder())
    graph = KuzuGraphStore(root / "graph.kuzu", stamp=stamp)
    try:
        return graph.execute(FACTS), graph.execute(EVENTS)
    finally:
        graph.close()


class _Recorded(FalkorGraphStore):
    """A store that keeps the text of every read it runs, its open's too."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.reads: list[str] = []
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def read(self, query: str, params: dict[str, object] | None = None) -> list[list]:
        self.reads.append(query)
        return super().read(query, params)


def _snapshot(server: FalkorServer, name: str) -> tuple[list, list]:
    graph = FalkorGraphStore(server, name)
    return graph.read(FACTS), graph.read(EVENTS)


def test_old_facts_get_the_times_kuzu_gives_them(
    server: FalkorServer, old_graph: str, on_kuzu: tuple[list, list]
) -> None:
    assert not any(row[3] or row[4] for row in _snapshot(server, old_graph)[0])  # undated
    FalkorGraphStore(server, old_graph, stamp=stamp)
    facts, events = _snapshot(server, old_graph)
    assert ["Ann", "lives_in", "Lyon", "2023-01-10T09:00:00", "2024-03-05T18:30:00",
            "home", True] in facts  # fmt: skip
    assert ["Ann", "moved_to", "Paris", "2024-03-05T18:30:00", None, "home", False] in facts
    assert (facts, events) == on_kuzu
    assert all(valid_from for _, valid_from in events)


def test_a_dated_graph_is_scanned_once(server: FalkorServer, old_graph: str) -> None:
    first = _Recorded(server, old_graph, stamp=stamp)
    assert UNDATED_FACTS in first.reads
    again = _Recorded(server, old_graph, stamp=stamp)
    assert UNDATED_FACTS not in again.reads
    new = uuid.uuid4().hex[:12]  # a graph this version writes is dated by its ingests
    assert UNDATED_FACTS in _Recorded(server, new, stamp=stamp).reads
    assert UNDATED_FACTS not in _Recorded(server, new, stamp=stamp).reads


class _StopsAt(FalkorGraphStore):
    """A store whose ``at``-th write fails, as a process stopped there."""

    at = 0

    def write_guarded(self, text: str, params: dict[str, object]) -> bool:
        type(self).at -= 1
        if type(self).at == 0:
            raise StoreError("stopped")
        return super().write_guarded(text, params)


def test_dating_cut_short_at_any_write_is_finished_by_the_next_open(
    server: FalkorServer, old_graph: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(falkordb_fact_times, "PART_FACTS", 1)  # a write per group
    FalkorGraphStore(server, old_graph, stamp=stamp)
    whole = _snapshot(server, old_graph)
    at, writes = 0, None
    while writes is None:
        at += 1
        name = uuid.uuid4().hex[:12]
        old_falkordb_layout.write_graph(server.writes.select_graph(server.graph_name(name)))
        _StopsAt.at = at
        try:
            _StopsAt(server, name, stamp=stamp)
            writes = at - 1
        except StoreError as exc:
            assert "next open tries again" in str(exc)
        FalkorGraphStore(server, name, stamp=stamp)
        assert _snapshot(server, name) == whole, f"stopped at write {at}"
    assert writes == 6  # three groups, two events (a part each) and the mark


def _other(extraction: ChunkExtraction, stated_at: datetime, *, position: int | None = None):
    """Another replica's dating: the same, a year earlier (to tell its writes apart)."""
    return stamp(extraction, stated_at.replace(year=stated_at.year - 1), position=position)


def test_facts_dated_meanwhile_by_another_replica_are_left_as_it_wrote_them(
    server: FalkorServer, old_graph: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = FalkorGraphStore.write_guarded
    other_went = []

    def after_the_other(self: FalkorGraphStore, text: str, params: dict[str, object]) -> bool:
        if not other_went:  # the other replica opens between our scan and our write
            other_went.append(True)
            monkeypatch.setattr(FalkorGraphStore, "write_guarded", real)
            FalkorGraphStore(server, old_graph, stamp=_other)
            monkeypatch.setattr(FalkorGraphStore, "write_guarded", after_the_other)
        return real(self, text, params)

    monkeypatch.setattr(FalkorGraphStore, "write_guarded", after_the_other)
    FalkorGraphStore(server, old_graph, stamp=stamp)
    facts, _ = _snapshot(server, old_graph)
    assert ["Ann", "moved_to", "Paris", "2023-03-05T18:30:00", None, "home", False] in facts


def _facts_of_ann(facts: list) -> set[tuple[str, bool]]:
    return {(f.object, f.current) for f in facts}


async def test_an_old_store_on_falkordb_knows_where_ann_lives_now(tmp_path: Path) -> None:
    prefix = uuid.uuid4().hex[:12]
    url = falkordb_live.server().url(prefix=prefix)
    named = FalkorServer(url)
    try:
        name = named.graph_name("default")
        data = tmp_path / "data"
        graph = named.writes.select_graph(name)
        old_falkordb_layout.build(data, DeterministicEmbedder(), graph, name)
    finally:
        named.close()
    engine = RecallEngine(data, embedder=DeterministicEmbedder(), graph_url=url)
    try:
        assert _facts_of_ann(await engine.facts("Ann")) == {("Lyon", False), ("Paris", True)}
        found = await engine.recall("Where does Ann live now?", only_context=True, top_k=5)
        assert "[current] Ann moved_to Paris" in found[0].text
        assert "[superseded] Ann lives_in Lyon" in found[0].text
        moved = Message(id="c3", speaker="Ann", text="I moved to Berlin.",
                        timestamp="2025-06-01T10:00:00")  # fmt: skip
        await engine.remember(Conversation(messages=[moved]), dataset_name="chat-ann")
    finally:
        engine.close()
    engine = RecallEngine(data, embedder=DeterministicEmbedder(), graph_url=url)
    try:
        current = [(f.predicate, f.object) for f in await engine.facts("Ann", history=False)]
        assert current == [("moved_to", "Berlin")]
    finally:
        engine.close()
