"""A RecallEngine whose graphs live on a real FalkorDB server (``graph_url``) does
what the embedded engine does on the same data: every search type answers, with
the same kinds of result (the fake LLM server stands in for the model); forget
takes an item out of the graph; the graph view draws the server's graph."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.testing import DeterministicEmbedder, FakeLLMServer
from retrievers import RETRIEVERS
from tests.own_loop import run_on_own_loop
from tests.storage import falkordb_live

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
QUESTION = "What caused the outage that blocked the Difference Engine build?"
QUERIES = {
    SearchType.CYPHER: "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text",
    SearchType.TEMPORAL: "What happened at the standup on 2024-03-04?",
    SearchType.CODING_RULES: "How should I query the billing database?",
}
RULE = "Always use parameterised SQL queries against the billing Postgres database."


def _reply(payload: dict) -> str:
    text = " ".join(str(m.get("content", "")) for m in payload.get("messages", []))
    if "Cypher" in text and "Schema:" in text:
        return "MATCH (c:Chunk) WHERE c.text CONTAINS 'Postgres' RETURN c.id AS id, c.text AS t"
    if "Search strategies:" in text:
        return "CHUNKS"
    return "The build was blocked on ERR-4012."


async def _fill(engine: RecallEngine) -> None:
    await engine.remember(DATA, dataset_name="examples")
    await engine.remember(RULE, dataset_name="examples", node_set=["coding_agent_rules"])


@pytest.fixture(scope="module")
def llm() -> Iterator[dict[str, str]]:
    with FakeLLMServer(default=_reply) as fake:
        yield {"llm_model": "openai/fake-model", "llm_api_base": fake.base_url, "llm_api_key": "t"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, llm: dict[str, str]) -> dict[str, Any]:
    """Two data dirs filled with the same data once: embedded Kuzu, and FalkorDB."""
    graph_url = falkordb_live.server().url()
    options = {
        "kuzu": {},
        "falkordb": {"graph_url": graph_url},
    }
    dirs = {name: tmp_path_factory.mktemp(name) / "data" for name in options}

    async def fill() -> None:
        for name, extra in options.items():
            engine = RecallEngine(dirs[name], embedder=DeterministicEmbedder(), **llm, **extra)
            try:
                await _fill(engine)
            finally:
                engine.close()

    run_on_own_loop(fill)
    return {name: (dirs[name], options[name]) for name in options}


def _open(built: dict[str, Any], name: str, llm: dict[str, str]) -> RecallEngine:
    data_dir, extra = built[name]
    return RecallEngine(data_dir, embedder=DeterministicEmbedder(), **llm, **extra)


@pytest.mark.parametrize("search_type", list(RETRIEVERS))
async def test_every_search_type_answers_as_on_kuzu(
    built: dict[str, Any], llm: dict[str, str], search_type: SearchType
) -> None:
    only_context = not RETRIEVERS[search_type].needs_llm
    query = QUERIES.get(search_type, QUESTION)
    results = {}
    for name in ("kuzu", "falkordb"):
        engine = _open(built, name, llm)
        try:
            results[name] = await engine.recall(
                query, search_type, only_context=only_context, top_k=3
            )
        finally:
            engine.close()
    kuzu, falkor = results["kuzu"], results["falkordb"]
    assert falkor, f"{search_type.value} on FalkorDB returned nothing"
    assert [r.search_type for r in falkor] == [r.search_type for r in kuzu][: len(falkor)]
    assert {r.kind for r in falkor} == {r.kind for r in kuzu}
    assert len(falkor) == len(kuzu)
    if search_type in (SearchType.CHUNKS, SearchType.CHUNKS_LEXICAL, SearchType.CYPHER):
        # These read no graph order: the very same hits.
        assert sorted(r.text for r in falkor) == sorted(r.text for r in kuzu)


async def test_the_graph_is_on_the_server(built: dict[str, Any], llm: dict[str, str]) -> None:
    engine = _open(built, "falkordb", llm)
    try:
        graph = engine.store().graph
        assert type(graph).__name__ == "FalkorGraphStore"
        assert not (built["falkordb"][0] / "tenants" / "default" / "graph.kuzu").exists()
        kuzu = _open(built, "kuzu", llm)
        try:
            other = kuzu.store().graph
            assert graph.document_ids() == other.document_ids()
            assert {e.id for e in graph.entities()} == {e.id for e in other.entities()}
            assert {r.id for r in graph.relations()} == {r.id for r in other.relations()}
        finally:
            kuzu.close()
    finally:
        engine.close()


async def test_forget_and_the_graph_view(tmp_path: Path, llm: dict[str, str]) -> None:
    url = falkordb_live.server().url(prefix=uuid.uuid4().hex[:12])
    async with RecallEngine(
        tmp_path / "data", embedder=DeterministicEmbedder(), graph_url=url, **llm
    ) as engine:
        stored = await engine.remember(DATA / "standup.json", dataset_name="standup")
        graph = engine.store().graph
        assert graph.entities(), "the rules extractor found no entity in the standup"
        page = await engine.visualize_graph(tmp_path / "graph.html")
        html = page.read_text(encoding="utf-8")
        assert "Charles" in html and "Ada" in html
        await engine.forget(data_id=stored.data_ids)
        assert graph.document_ids() == set() and graph.entities() == []
        assert graph.relations() == [] and graph.mention_links() == []
        assert await engine.recall(QUESTION, SearchType.CHUNKS, only_context=True) == []
    # Another engine (a replica with its own data dir) sees the same, emptied graph.
    async with RecallEngine(
        tmp_path / "other", embedder=DeterministicEmbedder(), graph_url=url, **llm
    ) as replica:
        await replica.remember("Grace fixed the connection pool.", dataset_name="standup")
        assert len(replica.store().graph.document_ids()) == 1


async def test_a_down_graph_server_fails_the_engine_clearly(tmp_path: Path) -> None:
    from recall_engine.core.errors import StoreError
    from tests.live_uvicorn import free_port

    url = f"falkordb://:{falkordb_live.PASSWORD}@127.0.0.1:{free_port()}"
    with pytest.raises(StoreError, match="graph_url") as info:
        RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder(), graph_url=url)
    assert falkordb_live.PASSWORD not in str(info.value)
    # Nothing was left holding the data dir: the embedded engine opens it at once.
    RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder()).close()


async def test_a_data_dir_made_on_kuzu_is_not_opened_against_the_server(tmp_path: Path) -> None:
    from recall_engine.core.errors import ConfigError

    data = tmp_path / "data"
    async with RecallEngine(data, embedder=DeterministicEmbedder()) as engine:
        await engine.remember("Ada Lovelace worked with Charles Babbage.", dataset_name="people")
    url = falkordb_live.server().url()
    async with RecallEngine(data, embedder=DeterministicEmbedder(), graph_url=url) as engine:
        with pytest.raises(ConfigError, match="made with the Kuzu graph in the data dir"):
            await engine.recall("Ada", SearchType.CHUNKS_LEXICAL)
    # Nothing was dropped: the embedded engine still finds it.
    async with RecallEngine(data, embedder=DeterministicEmbedder()) as engine:
        assert await engine.recall("Ada", SearchType.CHUNKS_LEXICAL)


async def test_a_new_data_dir_beside_a_filled_graph_needs_shared_vectors(tmp_path: Path) -> None:
    from recall_engine.core.errors import ConfigError

    url = falkordb_live.server().url()
    async with RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), graph_url=url) as a:
        await a.remember("Ada Lovelace worked with Charles Babbage.", dataset_name="people")
    async with RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), graph_url=url) as b:
        with pytest.raises(ConfigError, match="share vectors too"):
            await b.remember("Grace Hopper wrote a compiler.", dataset_name="people")
    assert not (tmp_path / "b" / "tenants" / "default" / "store.json").exists()


async def test_two_replicas_share_graph_and_vectors(tmp_path: Path) -> None:
    """The distributed pair: graph on FalkorDB, vectors at an s3:// URI (moto)."""
    from tests.storage import moto_s3

    s3 = moto_s3.server()
    shared = {
        "graph_url": falkordb_live.server().url(),
        "vector_uri": s3.fresh_uri(),
        "vector_storage_options": s3.options,
        "vector_refresh_s": 0,
    }
    a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), **shared)
    b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **shared)
    try:
        await a.remember(DATA / "standup.json", dataset_name="standup")
        hits = await b.recall("ERR-4012 Difference Engine", SearchType.CHUNKS_LEXICAL)
        assert hits and "ERR-4012" in hits[0].text
        graph_b = b.store().graph
        assert graph_b.document_ids() == a.store().graph.document_ids()
        (answer,) = await b.recall(QUESTION, SearchType.GRAPH_COMPLETION, only_context=True)
        assert answer.metadata["sources"]
        await b.remember("Grace fixed the connection pool on Tuesday.", dataset_name="standup")
        assert len(a.store().graph.document_ids()) == 2
    finally:
        a.close()
        b.close()
