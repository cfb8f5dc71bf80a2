"""Forgotten means gone: after ``forget()`` (by data id or by dataset) no reader
returns or mentions what was forgotten, the session entries built from it are
deleted, and its bytes leave the data dir's files, except the Kuzu graph file,
which has no vacuum (``RecallEngine.forget`` says what stays there).

The canary is a made-up word, so a match is the forgotten text and nothing else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from recall_engine import Document, RecallEngine, ResponseQAEntry, SearchType
from recall_engine.mcp.reads import session_history
from recall_engine.sessions import SessionStore
from recall_engine.storage import lance_purge
from recall_engine.storage.lance_vectors import LanceVectorStore
from recall_engine.storage.records import ChunkRecord

CANARY = "zorblaxian"
SECRET = Document(
    text=(
        "Mira Quell lives in Quito. Mira Quell invented the zorblaxian kettle in 2019. "
        "The zorblaxian kettle whistles in C sharp."
    ),
    title="zorblaxian notes",
)
KEPT = Document(text="Paul Brun lives in Lima. Paul Brun bakes bread.", title="bakery")
WORDS = (CANARY, "quito", "kettle")
"""Words of the secret that no question asks with (a session lists the questions asked)."""
TYPES = (
    None,
    SearchType.CHUNKS,
    SearchType.CHUNKS_LEXICAL,
    SearchType.GRAPH_COMPLETION,
    SearchType.SUMMARIES,
    SearchType.BROAD,
    SearchType.GRAPH_REPORT,
    SearchType.TEMPORAL,
)
QUESTIONS = ("Where does Mira Quell live?", "What whistles in C sharp?")
GRAPH_FILE = "graph.kuzu"


async def _seen(engine: RecallEngine, tmp_path: Path) -> str:
    """Everything the readers return, as one lower-case text (their caches fill)."""
    out = []
    for query_type in TYPES:
        for question in QUESTIONS:
            for only_context in (True, False):
                results = await engine.recall(
                    question, query_type, only_context=only_context, session_id="s1"
                )
                out += [r.model_dump_json() for r in results]
    out += [f.model_dump_json() for f in await engine.facts("Mira Quell")]
    out += [repr(i) for i in await engine.list_items()]
    out += [e.model_dump_json() for e in await session_history(engine, None, "s1")]
    page = await engine.visualize_graph(tmp_path / "graph.html")
    out.append(page.read_text())
    return "\n".join(out).lower()


def _files_with(root: Path, word: str) -> set[str]:
    """Names of the files under ``root`` whose bytes hold ``word`` (any case)."""
    needle = word.encode()
    return {p.name for p in root.rglob("*") if p.is_file() and needle in p.read_bytes().lower()}


async def _cached_answer(engine: RecallEngine) -> None:
    await engine.recall(QUESTIONS[0], session_id="s1")
    (again,) = await engine.recall(QUESTIONS[0], session_id="s1")
    assert isinstance(again, ResponseQAEntry) and "quito" in again.context.lower()


@pytest.mark.parametrize("how", ["data_id", "dataset"])
async def test_no_reader_returns_what_was_forgotten(how, tmp_path, engine) -> None:
    stored = await engine.remember(SECRET, dataset_name="secret")
    await engine.remember(KEPT, dataset_name="kept" if how == "dataset" else "secret")
    await _cached_answer(engine)
    seen = await _seen(engine, tmp_path)
    assert all(word in seen for word in WORDS)  # every reader had it, and cached it
    if how == "data_id":
        assert await engine.forget(data_id=stored.data_ids) == 1
    else:
        assert await engine.forget(dataset_name="secret") == 1
    seen = await _seen(engine, tmp_path)
    assert [word for word in WORDS if word in seen] == []
    assert "lima" in seen  # the rest is still there


async def test_the_session_entries_built_from_it_are_deleted(engine) -> None:
    secret = await engine.remember(SECRET, dataset_name="secret")
    await engine.remember(KEPT, dataset_name="kept")
    await _cached_answer(engine)
    await engine.recall("Where does Paul Brun live?", session_id="s1", datasets=["kept"])
    await engine.forget(data_id=secret.data_ids)
    left = await session_history(engine, None, "s1")
    assert [e.question for e in left] == ["Where does Paul Brun live?"]


@pytest.mark.parametrize("how", ["data_id", "dataset"])
async def test_its_bytes_leave_the_files_but_the_graph(how, tmp_path, hash_embedder) -> None:
    data = tmp_path / "data"
    engine = RecallEngine(data, embedder=hash_embedder)
    try:
        stored = await engine.remember(SECRET, dataset_name="secret")
        await engine.remember(KEPT, dataset_name="kept")
        await _cached_answer(engine)
        held = _files_with(data, CANARY)
        assert GRAPH_FILE in held and any(n.startswith("sessions.sqlite3") for n in held)
        assert any(n.endswith(".lance") for n in held)
        if how == "data_id":
            await engine.forget(data_id=stored.data_ids)
        else:
            await engine.forget(dataset_name="secret")
        assert _files_with(data, CANARY) <= {GRAPH_FILE}  # the engine still open
    finally:
        engine.close()
    assert _files_with(data, CANARY) <= {GRAPH_FILE}
    assert "lima" in (await _reopened_text(data, hash_embedder))


async def _reopened_text(data: Path, embedder) -> str:
    """What a new engine on ``data`` finds for the kept document."""
    async with RecallEngine(data, embedder=embedder) as engine:
        results = await engine.recall("Paul Brun", SearchType.CHUNKS, only_context=True)
        return "\n".join(r.text for r in results).lower()


def test_a_session_store_deletes_what_rests_on_forgotten_chunks_or_datasets(tmp_path) -> None:
    sessions = SessionStore(tmp_path)

    def add(tenant: str, context: str, chunk: str, dataset: str) -> str:
        return sessions.append(
            tenant, "u", "s", question="q?", context=context, answer="a",
            element_ids=[f"chunk:{chunk}", "entity:e1"], dataset_ids=[dataset],
        ).qa_id  # fmt: skip

    gone = add("t1", f"the {CANARY} context", "c1", "d1")
    add("t1", "kept context", "c2", "d1")
    add("t2", "other tenant's context", "c1", "d1")  # the same ids in another tenant stay
    in_dataset = add("t1", "context from d2", "c3", "d2")
    sessions.set_feedback("t1", "u", "s", gone, score=5, text=None)
    sessions.close()  # the entries move from the WAL into the file
    sessions = SessionStore(tmp_path)
    assert sessions.element_weights("t1", ["chunk:c1"]) == {"chunk:c1": 1.0}
    assert sessions.forget("t1", chunk_ids=["c1"]) == 1
    assert sessions.forget("t1", dataset_ids=["d2"]) == 1
    assert sessions.forget("t1") == 0
    left = sessions.entries("t1", "u", "s")
    assert [e.context for e in left] == ["kept context"]
    assert in_dataset not in [e.qa_id for e in left]
    assert [e.context for e in sessions.entries("t2", "u", "s")] == ["other tenant's context"]
    assert sessions.element_weights("t1", ["chunk:c1"]) == {}
    assert _files_with(tmp_path, CANARY) == set()  # its bytes too, WAL included
    sessions.close()


def test_a_purge_rewrites_only_the_fragments_that_held_deleted_rows(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lance_purge, "FRAGMENT_ROWS", 4)
    store = LanceVectorStore(tmp_path / "vectors", 4)
    for batch in range(3):  # three fragments of FRAGMENT_ROWS rows each
        texts = [f"{CANARY} {n}" if (batch, n) == (1, 0) else f"kept {n}" for n in range(4)]
        chunks = [_chunk(f"{batch}{n}", text) for n, text in enumerate(texts)]
        store.add_chunks(chunks, np.ones((4, 4), dtype=np.float32), [["t"]] * 4)
    files = tmp_path / "vectors" / "chunks.lance" / "data"
    before = {p.name for p in files.iterdir()}
    store.delete_data(["d10"])
    store.purge_deleted()
    after = {p.name for p in files.iterdir()}
    assert len(before - after) == 1 and len(after - before) == 1  # the middle one, rewritten
    assert _files_with(tmp_path, CANARY) == set()
    assert store.count() == 11


def _chunk(key: str, text: str) -> ChunkRecord:
    """Chunk ``c<key>`` of item ``d<key>``."""
    return ChunkRecord(
        id=f"c{key}", data_id=f"d{key}", dataset_id="ds", dataset_name="ds",
        chunk_index=0, text=text, document_name="doc",
    )  # fmt: skip
