"""A data dir that an earlier version wrote opens with this one, in place, and
answers as it did or better: every item found in every mode, datasets and node sets
kept apart, old facts dated so that the present is answered from what holds now,
new data remembered and old data forgotten, a second open unchanged, and a
migration cut short at any step finished by the next open.

``tests/storage/old_layout.py`` builds the data dir as the 2026-12-01 version wrote
it (its schema, the rows it wrote for texts of our own), with kuzu and lancedb.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType
from recall_engine.core.errors import StoreError
from recall_engine.graph.supersession import stamp
from recall_engine.storage import kuzu_entity_lists, kuzu_migrate
from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.testing import DeterministicEmbedder
from tests.storage.old_layout import ROWS, TEXTS, build

KESTREL, LINTER = TEXTS["notes"], TEXTS["work"]
LYON, PARIS = (turn[2] for turn in TEXTS["chat-ann"])


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("old") / "data"
    build(data, DeterministicEmbedder())
    return data


@pytest.fixture
def old_dir(template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the old data dir, never opened by this version."""
    return Path(shutil.copytree(template, tmp_path / "data"))


def _graph(data: Path) -> Path:
    return data / "tenants" / "default" / "graph.kuzu"


def _old_data_id(dataset: str) -> str:
    documents = json.loads(ROWS.read_text(encoding="utf-8"))["nodes"]["Document"]
    return next(row[0] for row in documents["rows"] if row[2] == dataset)


def _migrate_graph(data: Path) -> None:
    """Open the old graph once with graph extraction's ``stamp``, as the engine's
    store does when it passes it (``KuzuGraphStore``), so its facts get their times."""
    KuzuGraphStore(_graph(data), stamp=stamp).close()


def _snapshot(graph: KuzuGraphStore) -> tuple[list, ...]:
    """What the migration changes, and what it must keep."""
    return (
        graph.execute(
            "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name, r.predicate, b.name, "
            "r.valid_from, r.valid_until, r.family, r.superseded_by IS NOT NULL "
            "ORDER BY a.name, r.predicate"
        ),
        graph.execute("MATCH (e:Entity) RETURN e.id, e.aliases, e.keys ORDER BY e.id"),
        graph.execute("CALL table_info('Entity') RETURN name, type ORDER BY name"),
        graph.execute("MATCH (v:Event) RETURN v.id, v.valid_from ORDER BY v.id"),
        graph.execute("MATCH (c:Chunk) RETURN c.id, c.text ORDER BY c.id"),
    )


async def _texts(engine: RecallEngine, query: str, query_type=None, **options) -> list[str]:
    found = await engine.recall(query, query_type, only_context=True, top_k=5, **options)
    return [entry.text for entry in found]


async def test_every_old_item_is_found_in_every_mode(old_dir: Path) -> None:
    engine = RecallEngine(old_dir, embedder=DeterministicEmbedder())
    try:
        assert {d.name for d in await engine.datasets()} == {"notes", "chat-ann", "work"}
        for query, text in [
            ("Who founded Kestrel Labs?", KESTREL),
            ("Where does Ann live?", LYON),
            ("Did Ann move to Paris?", PARIS),
            ("What to run before merging a pull request?", LINTER),
        ]:
            for query_type in (SearchType.CHUNKS, SearchType.GRAPH_COMPLETION, None):
                found = await _texts(engine, query, query_type)
                assert any(text in t for t in found), (query, query_type, found)
        both = "Who founded Kestrel Labs, and what runs before merging?"
        assert any(KESTREL in t for t in await _texts(engine, both, SearchType.CHUNKS))
        only_work = await _texts(engine, both, SearchType.CHUNKS, datasets=["work"])
        assert only_work == [LINTER]
        rules = await _texts(engine, "run the linter before merging", SearchType.CODING_RULES)
        assert rules and all(LINTER in t for t in rules)
    finally:
        engine.close()


def test_old_facts_get_their_times_in_place(old_dir: Path) -> None:
    graph = KuzuGraphStore(_graph(old_dir), stamp=stamp)
    try:
        facts, _, columns, events, chunks = _snapshot(graph)
        assert ["Ann", "lives_in", "Lyon", "2023-01-10T09:00:00", "2024-03-05T18:30:00",
                "home", True] in facts  # fmt: skip
        assert ["Ann", "moved_to", "Paris", "2024-03-05T18:30:00", None, "home", False] in facts
        # a document's fact is dated by the year its sentence names, as an ingest dates it
        assert ["Imre Takacs", "founded", "Kestrel Labs", "2019-01-01T00:00:00", None, None,
                False] in facts  # fmt: skip
        assert all(valid_from for _, valid_from in events)
        assert ["aliases", "STRING"] in columns and ["keys", "STRING"] in columns
        before = _snapshot(graph)
    finally:
        graph.close()
    again = KuzuGraphStore(_graph(old_dir), stamp=stamp)  # a second open changes nothing
    try:
        assert _snapshot(again) == before
        assert len(chunks) == 4
    finally:
        again.close()


async def test_an_old_data_dir_answers_where_ann_lives_now(old_dir: Path) -> None:
    _migrate_graph(old_dir)
    engine = RecallEngine(old_dir, embedder=DeterministicEmbedder())
    try:
        facts = {(f.object, f.current) for f in await engine.facts("Ann")}
        assert facts == {("Lyon", False), ("Paris", True)}
        answer = (await _texts(engine, "Where does Ann live now?"))[0]
        assert "[current] Ann moved_to Paris" in answer
        assert "[superseded] Ann lives_in Lyon" in answer
        then = await engine.facts("Ann", as_of="2023-06-01")
        assert [(f.object, f.valid_until is not None) for f in then] == [("Lyon", True)]
    finally:
        engine.close()


async def test_remember_and_forget_in_an_old_data_dir_then_reopen(old_dir: Path) -> None:
    _migrate_graph(old_dir)
    engine = RecallEngine(old_dir, embedder=DeterministicEmbedder())
    try:
        again = await engine.remember(KESTREL, dataset_name="notes")
        assert again.data_ids == [_old_data_id("notes")]  # the same item, not a second one
        moved = Message(id="c3", speaker="Ann", text="I moved to Berlin.",
                        timestamp="2025-06-01T10:00:00")  # fmt: skip
        await engine.remember(Conversation(messages=[moved]), dataset_name="chat-ann")
        assert await engine.forget(data_id=_old_data_id("work")) == 1
    finally:
        engine.close()
    engine = RecallEngine(old_dir, embedder=DeterministicEmbedder())
    try:
        found = await _texts(engine, "Kestrel Labs Berlin Lyon linter", SearchType.CHUNKS)
        assert sum(KESTREL in t for t in found) == 1
        assert any("Berlin" in t for t in found) and any(LYON in t for t in found)
        assert not any(LINTER in t for t in found)
        current = [(f.predicate, f.object) for f in await engine.facts("Ann", history=False)]
        assert current == [("moved_to", "Berlin")]
    finally:
        engine.close()


class _CutShort:
    """A connection that fails one statement, as a process stopped there: the
    ``at``-th, or the first that contains ``at``."""

    def __init__(self, conn: object, at: int | str) -> None:
        self.conn, self.at, self.calls = conn, at, 0

    def execute(self, query: str, params: dict[str, object] | None = None) -> object:
        self.calls += 1
        if self.calls == self.at or (isinstance(self.at, str) and self.at in query):
            raise RuntimeError(f"stopped at statement {self.calls}: {query[:60]}")
        return self.conn.execute(query, params or {})  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def migrated(template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list, ...]:
    """The old graph as a whole migration leaves it."""
    path = tmp_path_factory.mktemp("migrated") / "graph.kuzu"
    shutil.copy(_graph(template), path)
    graph = KuzuGraphStore(path, stamp=stamp)
    try:
        return _snapshot(graph)
    finally:
        graph.close()


def _cut_then_open(template: Path, path: Path, at: int | str) -> int | None:
    """Migrate a copy of the old graph at ``path`` until statement ``at`` fails and
    close it, then open it as the next process would; return how many statements
    the migration ran when none failed (None when one did)."""
    import kuzu

    shutil.copy(_graph(template), path)
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    cut = _CutShort(conn, at)
    try:
        kuzu_migrate.migrate(cut, stamp)  # type: ignore[arg-type]
        ran: int | None = cut.calls
    except RuntimeError:
        ran = None
    conn.close()
    db.close()
    return ran


@pytest.mark.parametrize(
    "at",
    [
        "DROP keys",  # the aliases list dropped, the keys list not yet
        "RENAME keys_text",  # one text column renamed, not the other
        "SET v.valid_from",  # inside the facts' transaction: rolled back
        "CHECKPOINT",  # the first checkpoint, after the schema's new columns
    ],
)
def test_a_migration_cut_short_is_finished_by_the_next_open(
    template: Path, migrated: tuple[list, ...], tmp_path: Path, at: str
) -> None:
    path = tmp_path / "graph.kuzu"
    assert _cut_then_open(template, path, at) is None
    graph = KuzuGraphStore(path, stamp=stamp)
    try:
        assert _snapshot(graph) == migrated
    finally:
        graph.close()


@pytest.mark.slow
def test_a_migration_cut_short_at_any_statement_is_finished_by_the_next_open(
    template: Path, migrated: tuple[list, ...], tmp_path: Path
) -> None:
    at, steps = 0, None
    while steps is None:
        at += 1
        path = tmp_path / f"cut-{at}.kuzu"
        steps = _cut_then_open(template, path, at)
        graph = KuzuGraphStore(path, stamp=stamp)
        try:
            assert _snapshot(graph) == migrated, f"cut short at statement {at}"
        finally:
            graph.close()
    assert steps > 20  # the schema's, the lists' and the facts' statements were all cut


def test_a_failed_migration_says_the_data_is_kept_and_what_to_do(
    old_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: object) -> bool:
        raise RuntimeError("disk full")

    monkeypatch.setattr(kuzu_entity_lists, "migrate", broken)
    with pytest.raises(StoreError) as raised:
        KuzuGraphStore(_graph(old_dir))
    message = str(raised.value)
    assert "could not be brought to this version's layout" in message
    assert "data is kept" in message and "next open tries again" in message
    assert isinstance(raised.value.__cause__, RuntimeError)
    monkeypatch.undo()
    graph = KuzuGraphStore(_graph(old_dir))  # the failed open let the graph go
    try:
        assert len(graph.execute("MATCH (e:Entity) RETURN e.id")) == 8
    finally:
        graph.close()


class _Recorded:
    """A connection that keeps the text of every statement it runs."""

    def __init__(self, conn: object) -> None:
        self.conn, self.queries = conn, []

    def execute(self, query: str, params: dict[str, object] | None = None) -> object:
        self.queries.append(query)
        return self.conn.execute(query, params or {})  # type: ignore[attr-defined]


def _opened(path: Path, stamp_: object = stamp) -> list[str]:
    """Open the graph at ``path`` as ``KuzuGraphStore`` does (``migrate``); the
    statements the open ran."""
    import kuzu

    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    recorded = _Recorded(conn)
    try:
        kuzu_migrate.migrate(recorded, stamp_)  # type: ignore[arg-type]
    finally:
        conn.close()
        db.close()
    return recorded.queries


def _scans(queries: list[str]) -> bool:
    return any("r.valid_from IS NULL" in q for q in queries)


def test_a_dated_graph_is_not_scanned_again_at_open(old_dir: Path) -> None:
    assert _scans(_opened(_graph(old_dir)))  # the first open dates the old facts
    assert not _scans(_opened(_graph(old_dir)))


def test_a_graph_written_with_times_is_scanned_once(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    assert not _scans(_opened(path, None))  # without stamp: neither scanned nor marked
    assert _scans(_opened(path))  # no mark yet: what is there might be undated
    assert not _scans(_opened(path))
    assert not _scans(_opened(path))


@pytest.mark.parametrize("at", ["SET v.valid_from", "COMMIT", "COMMENT ON"])
def test_a_dating_cut_short_is_not_marked_done(template: Path, tmp_path: Path, at: str) -> None:
    path = tmp_path / "graph.kuzu"
    assert _cut_then_open(template, path, at) is None
    assert _scans(_opened(path))  # the next open dates the facts, and marks it
    assert not _scans(_opened(path))
