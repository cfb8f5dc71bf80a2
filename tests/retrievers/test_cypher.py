"""CYPHER through recall(): rows, read-only guard, bounds, scope, freshness."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.config import RecallConfig
from recall_engine.errors import (
    InvalidInputError,
    QueryTimeoutError,
    UnsupportedSearchTypeError,
)
from recall_engine.storage import kuzu_readonly

# Writes, and what a read-only database still allows (files, extensions, other
# databases, settings, transactions), spelled the ways an injection would try.
ATTACKS = [
    "MATCH (n) DETACH DELETE n",
    "match (n) detach delete n",
    "MATCH (c:Chunk) DELETE c",
    "CREATE (:Entity {id: 'x', name: 'x'})",
    "MERGE (d:Dataset {id: 'evil'})",
    "MATCH (e:Entity) SET e.name = 'pwned'",
    "MATCH (e:Entity) REMOVE e.name",
    "DROP TABLE Chunk",
    "ALTER TABLE Entity ADD evil INT64",
    "MATCH (n) RETURN n; MATCH (n) DETACH DELETE n",
    "MATCH (n) RETURN n /* comment */ ; CREATE (:Dataset {id: 'x'})",
    "MATCH (n) WITH n LIMIT 1 DETACH DELETE n RETURN 1",
    "COPY Chunk FROM '/tmp/evil.csv'",
    "LOAD FROM '/etc/passwd' (file_format='csv') RETURN *",
    "EXPORT DATABASE '/tmp/recall-engine-export'",
    "IMPORT DATABASE '/tmp/recall-engine-export'",
    "INSTALL httpfs",
    "LOAD EXTENSION json",
    "ATTACH '/tmp/other-tenant' AS other (dbtype kuzu)",
    "CALL threads = 8",
    "CALL read_csv_serial('/etc/passwd') RETURN *",
    "BEGIN TRANSACTION",
    "CHECKPOINT",
    "CREATE MACRO evil(x) AS x + 1",
]


async def _graph_counts(engine) -> tuple[int, int, int]:
    graph = engine.store().graph
    nodes = graph.read("MATCH (n) RETURN count(n)")[0][0]
    edges = graph.read("MATCH ()-[r]->() RETURN count(r)")[0][0]
    names = graph.read("MATCH (e:Entity) RETURN count(DISTINCT e.name)")[0][0]
    return nodes, edges, names


async def _people(engine: RecallEngine) -> None:
    await engine.remember(
        [
            Document(text="Ada Lovelace worked with Charles Babbage in London.", title="ada"),
            Document(text="Alan Turing was born in London in 1912.", title="turing"),
        ],
        dataset_name="people",
    )


@pytest.fixture
async def corpus(tmp_path, hash_embedder, prebuilt):
    """A fresh copy per test of the people corpus (ingested once per session)."""
    engine = RecallEngine(prebuilt(_people, tmp_path / "data"), embedder=hash_embedder)
    yield engine
    engine.close()


async def test_rows_come_back_in_order_capped_by_top_k(corpus):
    results = await corpus.recall(
        "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text ORDER BY c.text", top_k=1
    )
    assert len(results) == 1
    (row,) = results
    assert row.kind == "cypher" and row.search_type is SearchType.CYPHER
    assert row.raw["values"]["text"].startswith("Ada Lovelace")
    # a row naming a stored chunk carries it as provenance
    assert row.metadata["sources"][0]["chunk_id"] == row.raw["values"]["id"]
    everything = await corpus.recall("MATCH (c:Chunk) RETURN c.text", query_type="CYPHER")
    assert len(everything) == 2
    assert [r.score for r in everything] == sorted((r.score for r in everything), reverse=True)


async def test_parameters_come_from_the_config(corpus):
    results = await corpus.recall(
        "MATCH (c:Chunk) WHERE c.text CONTAINS $word RETURN c.text AS text",
        query_type=SearchType.CYPHER,
        retriever_specific_config={"parameters": {"word": "Turing"}},
    )
    assert [r.raw["values"]["text"] for r in results] == ["Alan Turing was born in London in 1912."]


@pytest.mark.parametrize("attack", ATTACKS)
async def test_writes_and_escapes_change_nothing(corpus, attack):
    before = await _graph_counts(corpus)
    chunks_before = len(await corpus.recall("London", query_type="CHUNKS"))
    with pytest.raises(InvalidInputError):
        await corpus.recall(attack, query_type=SearchType.CYPHER)
    assert await _graph_counts(corpus) == before
    assert len(await corpus.recall("London", query_type="CHUNKS")) == chunks_before


async def test_a_routed_detach_delete_is_refused_and_changes_nothing(corpus):
    before = await _graph_counts(corpus)
    with pytest.raises(InvalidInputError, match="read-only"):
        await corpus.recall("MATCH (n) DETACH DELETE n")  # routed, no query_type
    assert await _graph_counts(corpus) == before
    rows = await corpus.recall("MATCH (n:Chunk) RETURN count(n) AS n")
    assert rows[0].raw["values"]["n"] == 2


async def test_the_engine_refuses_writes_even_past_the_keyword_guard(corpus, monkeypatch):
    monkeypatch.setattr(kuzu_readonly, "check_read_query", lambda query: None)
    before = await _graph_counts(corpus)
    with pytest.raises(InvalidInputError, match="read-only"):
        await corpus.recall("MATCH (n) DETACH DELETE n", query_type="CYPHER")
    assert await _graph_counts(corpus) == before


async def test_reads_see_data_remembered_after_the_handle_opened(corpus):
    count = "MATCH (c:Chunk) RETURN count(c) AS n"
    assert (await corpus.recall(count, query_type="CYPHER"))[0].raw["values"]["n"] == 2
    await corpus.remember("Grace Hopper wrote the first compiler.", dataset_name="people")
    assert (await corpus.recall(count, query_type="CYPHER"))[0].raw["values"]["n"] == 3


async def test_invalid_cypher_says_so(corpus):
    with pytest.raises(InvalidInputError, match="not valid Cypher"):
        await corpus.recall("MATCH (n RETURN n", query_type="CYPHER")
    with pytest.raises(InvalidInputError, match="not valid Cypher"):
        await corpus.recall("MATCH (n:NoSuchTable) RETURN n", query_type="CYPHER")


async def test_a_timeout_bounds_every_query(corpus):
    # A million rows against a 1 ms limit: the error shows the query was cut.
    with pytest.raises(QueryTimeoutError, match="ms limit"):
        await corpus.recall(
            "UNWIND range(1, 1000) AS a UNWIND range(1, 1000) AS b "
            "WITH a, b WHERE (a * b) % 7 = 3 RETURN count(*)",
            query_type="CYPHER",
            retriever_specific_config={"timeout_s": 0.001},
        )


async def test_memory_is_bounded(corpus, monkeypatch):
    # A huge generator is refused before it runs (it once got the process OOM-killed).
    with pytest.raises(InvalidInputError, match="generate over"):  # the guard's own refusal
        await corpus.recall("UNWIND range(1,100000000) AS x RETURN sum(x)", query_type="CYPHER")
    # What the guard lets through lives in the buffer pool, and a query that needs
    # more than the pool fails cleanly (the pool is shrunk to keep the test small).
    monkeypatch.setattr(kuzu_readonly, "BUFFER_POOL_BYTES", 16 * 1024 * 1024)
    await corpus.remember("A fresh fact reopens the read-only handle.", dataset_name="people")
    with pytest.raises(InvalidInputError, match="needs more than the 16 MiB"):
        await corpus.recall(
            "UNWIND range(1, 1000) AS a UNWIND range(1, 1000) AS b "
            "RETURN size(collect(string(a) + 'x' + string(b)))",
            query_type="CYPHER",
        )
    rows = await corpus.recall("MATCH (c:Chunk) RETURN count(c) AS n", query_type="CYPHER")
    assert rows[0].raw["values"]["n"] == 3


async def test_a_scope_narrower_than_the_tenant_is_refused(corpus):
    await corpus.remember("Private notes about billing.", dataset_name="private")
    with pytest.raises(InvalidInputError, match="whole tenant graph"):
        await corpus.recall(
            "MATCH (c:Chunk) RETURN c.text", query_type="CYPHER", datasets=["people"]
        )
    rows = await corpus.recall(
        "MATCH (c:Chunk) RETURN c.text", query_type="CYPHER", datasets=["people", "private"]
    )
    assert len(rows) == 3


async def test_allow_cypher_query_false_disables_it(tmp_path, hash_embedder):
    from recall_engine import RecallEngine

    config = RecallConfig(data_dir=tmp_path / "data", allow_cypher_query=False)
    engine = RecallEngine(config=config, embedder=hash_embedder)
    try:
        await engine.remember("Ada Lovelace wrote notes.", dataset_name="people")
        with pytest.raises(UnsupportedSearchTypeError):
            await engine.recall("MATCH (n) RETURN n", query_type="CYPHER")
    finally:
        engine.close()
