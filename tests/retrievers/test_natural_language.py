"""NATURAL_LANGUAGE through recall(), with the LLM's Cypher scripted on the fake
server: a failed query is fed back (with its error) for the next attempt, at most
three attempts, then the documented LLMResponseError."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.errors import LLMNotConfiguredError, LLMResponseError
from recall_engine.testing import FakeLLMServer

QUESTION = "Which chunks mention Postgres?"
BAD = "MATCH (x:NoSuchTable) RETURN x.name"
WRITE = "MATCH (n) DETACH DELETE n"
GOOD = "MATCH (c:Chunk) WHERE c.text CONTAINS 'Postgres' RETURN c.text AS text"
EMPTY = "MATCH (c:Chunk) WHERE c.text CONTAINS 'zebra' RETURN c.text AS text"
COUNT = "MATCH (n) RETURN count(*) AS n"


@pytest.fixture
def server():
    with FakeLLMServer(default="unused") as fake:
        yield fake


@pytest.fixture
async def engine(tmp_path, hash_embedder, server):
    eng = RecallEngine(
        tmp_path / "data",
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
        llm_api_key="test",
    )
    await eng.remember(
        [
            Document(text="The billing service moved to Postgres in March.", title="billing"),
            Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
        ],
        dataset_name="docs",
    )
    yield eng
    eng.close()


def user_text(server, index: int) -> str:
    return server.requests[index].message("user") or ""


async def test_a_failed_query_is_fed_back_with_its_error(engine, server):
    server.enqueue(BAD, f"```cypher\n{GOOD}\n```")
    results = await engine.recall(QUESTION, SearchType.NATURAL_LANGUAGE, verbose=True)
    assert len(server.requests) == 2
    assert results and all(r.kind == "natural_language" for r in results)
    assert all("Postgres" in r.text for r in results)
    details = results[0].metadata["retrieval"]
    assert details["cypher"] == GOOD  # code fences are stripped
    [failed] = details["attempts"]
    assert failed["query"] == BAD and failed["error"]
    second = user_text(server, 1)
    assert failed["error"] in second and BAD in second
    assert "Write a corrected query." in second
    assert "previous query" not in user_text(server, 0)
    assert "Schema:" in user_text(server, 0) and "Chunk" in user_text(server, 0)


async def test_a_write_counts_as_a_failed_attempt_and_changes_nothing(engine, server):
    before = await engine.recall(COUNT, SearchType.CYPHER)
    server.enqueue(WRITE, GOOD)
    results = await engine.recall(QUESTION, SearchType.NATURAL_LANGUAGE, verbose=True)
    assert results
    [refused] = results[0].metadata["retrieval"]["attempts"]
    assert refused["query"] == WRITE and refused["error"] in user_text(server, 1)
    after = await engine.recall(COUNT, SearchType.CYPHER)
    assert [r.raw for r in after] == [r.raw for r in before]


async def test_gives_up_after_three_attempts_with_the_last_error(engine, server):
    server.enqueue(BAD, WRITE, "this is not cypher at all")
    with pytest.raises(LLMResponseError, match="no usable read-only Cypher in 3 attempts"):
        await engine.recall(QUESTION, SearchType.NATURAL_LANGUAGE)
    assert len(server.requests) == 3
    assert BAD in user_text(server, 1) and WRITE in user_text(server, 2)
    assert BAD not in user_text(server, 2)  # each retry carries the latest failure


async def test_queries_that_only_find_no_rows_answer_nothing(engine, server):
    server.enqueue(EMPTY, EMPTY, EMPTY)
    assert await engine.recall(QUESTION, SearchType.NATURAL_LANGUAGE) == []
    assert len(server.requests) == 3
    assert "the query returned no rows" in user_text(server, 1)


async def test_max_attempts_is_configurable(engine, server):
    server.enqueue(BAD, GOOD)
    with pytest.raises(LLMResponseError, match="in 1 attempts"):
        await engine.recall(
            QUESTION,
            SearchType.NATURAL_LANGUAGE,
            retriever_specific_config={"max_attempts": 1},
        )
    assert len(server.requests) == 1


async def test_without_an_llm_it_refuses_clearly(tmp_path, hash_embedder):
    async with RecallEngine(tmp_path / "offline", embedder=hash_embedder) as offline:
        await offline.remember("The billing service moved to Postgres.", dataset_name="docs")
        with pytest.raises(LLMNotConfiguredError, match="NATURAL_LANGUAGE needs an LLM"):
            await offline.recall(QUESTION, SearchType.NATURAL_LANGUAGE)
