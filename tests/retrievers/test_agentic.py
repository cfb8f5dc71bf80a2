"""AGENTIC_COMPLETION through recall(), with the LLM's tool calls scripted on the
fake server: tools run in order, the loop's three stops, the one-dataset scope,
no LLM, and a Cypher write that is refused and only observed."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.errors import InvalidAgenticDatasetScope, LLMNotConfiguredError
from recall_engine.read.store_reader import StoreReader
from recall_engine.testing import FakeLLMServer, RecordedRequest
from retrievers import Identity, RetrievalContext
from retrievers.agentic_completion import AgenticCompletionRetriever, AgenticConfig

QUESTION = "Which database does the billing service use?"
ANSWER = "The billing service uses Postgres."
COUNT = "MATCH (n) RETURN count(*) AS n"


def step(tool: str, text: str = "") -> str:
    return json.dumps({"tool": tool, "input": text})


def is_step(request: RecordedRequest) -> bool:
    return "Observations so far:" in (request.message("user") or "")


@pytest.fixture
def server():
    with FakeLLMServer(default=ANSWER) as fake:
        yield fake


async def _engine(path, embedder, server, **kwargs):
    eng = RecallEngine(
        path,
        embedder=embedder,
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
        llm_api_key="test",
        **kwargs,
    )
    await eng.remember(
        [
            Document(text="The billing service moved to Postgres in March.", title="billing"),
            Document(text="Postgres backups run nightly for the billing service.", title="ops"),
            Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
            Document(text="Alice Smith leads the billing team in Berlin.", title="team"),
        ],
        dataset_name="docs",
    )
    return eng


@pytest.fixture
async def engine(tmp_path, hash_embedder, server):
    eng = await _engine(tmp_path / "data", hash_embedder, server)
    yield eng
    eng.close()


async def agentic(engine, **kwargs):
    results = await engine.recall(QUESTION, SearchType.AGENTIC_COMPLETION, verbose=True, **kwargs)
    assert len(results) == 1
    return results[0]


async def test_runs_tools_in_order_and_stops_at_finish(engine, server):
    server.enqueue(
        step("search_passages", "billing Postgres"),
        step("search_graph", "Alice Smith billing team"),
        step("cypher", "MATCH (c:Chunk) WHERE c.text CONTAINS 'cafeteria' RETURN c.text AS text"),
        step("finish"),
    )
    result = await agentic(engine)
    details = result.metadata["retrieval"]
    assert [s["tool"] for s in details["steps"]] == [
        "search_passages",
        "search_graph",
        "cypher",
        "finish",
    ]
    assert details["stopped"] == "finish"
    assert all(s["added"] > 0 and s["ms"] >= 0 for s in details["steps"][:3])
    assert result.kind == "graph_completion"
    assert result.search_type is SearchType.AGENTIC_COMPLETION
    assert result.text == ANSWER and result.metadata["answer_mode"] == "llm"
    steps = [r for r in server.requests if is_step(r)]
    assert len(steps) == 4 and len(server.requests) == 5  # four steps, then the answer stage
    assert "(none yet)" in (steps[0].message("user") or "")
    later = steps[3].message("user") or ""
    assert "Step 1: search_passages" in later and "Step 3: cypher" in later
    assert "cafeteria" in later  # the Cypher row is observed
    answer_prompt = server.requests[-1].message("user") or ""
    assert "Postgres" in answer_prompt and "cafeteria" in answer_prompt
    # every hit is kept once: the answer's sources name each chunk once
    ids = [s["chunk_id"] for s in result.metadata["sources"]]
    assert len(ids) == len(set(ids)) and ids


async def test_stops_after_six_steps(engine, server):
    server.enqueue(*(step("cypher", f"RETURN {n} AS n") for n in range(1, 9)))  # a new row each
    result = await agentic(engine)
    details = result.metadata["retrieval"]
    assert details["stopped"] == "max_steps"
    assert len(details["steps"]) == 6
    assert [s["added"] for s in details["steps"]] == [1] * 6
    assert sum(is_step(r) for r in server.requests) == 6


async def test_stops_when_a_step_adds_nothing(engine, server):
    server.enqueue(
        step("search_passages", "billing Postgres"),
        step("search_passages", "billing Postgres"),
        step("search_graph", "never asked"),
    )
    result = await agentic(engine)
    details = result.metadata["retrieval"]
    assert details["stopped"] == "no_new_hits"
    assert [s["added"] > 0 for s in details["steps"]] == [True, False]
    assert sum(is_step(r) for r in server.requests) == 2


async def test_an_unusable_reply_ends_the_loop_with_what_was_gathered(engine, server):
    server.enqueue(step("search_passages", "billing Postgres"), "no idea", "still no JSON")
    result = await agentic(engine)
    details = result.metadata["retrieval"]
    assert details["stopped"] == "unusable_reply"
    assert "AgentStep" in details["unusable_reply"]
    assert len(details["steps"]) == 1 and result.metadata["sources"]
    assert "fallback" not in details


async def test_finish_with_nothing_gathered_answers_from_the_question(engine, server):
    server.enqueue(step("finish"))
    result = await agentic(engine)
    details = result.metadata["retrieval"]
    assert details["stopped"] == "finish" and "fallback" in details
    assert result.metadata["sources"]


async def test_a_cypher_write_is_refused_observed_and_changes_nothing(engine, server):
    before = await engine.recall(COUNT, SearchType.CYPHER)
    server.enqueue(
        step("cypher", "MATCH (n) DETACH DELETE n"),
        step("search_passages", "billing Postgres"),
        step("finish"),
    )
    result = await agentic(engine)
    refused = result.metadata["retrieval"]["steps"][0]
    assert refused["tool"] == "cypher" and refused["added"] == 0 and refused["error"]
    second = [r for r in server.requests if is_step(r)][1].message("user") or ""
    assert "Step 1: cypher('MATCH (n) DETACH DELETE n') failed:" in second
    assert result.metadata["retrieval"]["stopped"] == "finish"
    after = await engine.recall(COUNT, SearchType.CYPHER)
    assert [r.raw for r in after] == [r.raw for r in before]


async def test_cypher_is_not_offered_when_configuration_disables_it(
    tmp_path, hash_embedder, server
):
    eng = await _engine(tmp_path / "nocypher", hash_embedder, server, allow_cypher_query=False)
    try:
        server.enqueue(step("cypher", "MATCH (n) RETURN n LIMIT 1"), step("finish"))
        result = await agentic(eng)
    finally:
        eng.close()
    details = result.metadata["retrieval"]
    assert "cypher" not in details["tools"]
    assert "not available" in details["steps"][0]["error"]
    first = next(r for r in server.requests if is_step(r)).message("user") or ""
    assert "- cypher:" not in first


async def test_two_datasets_in_scope_are_refused(engine, server):
    await engine.remember("Postgres also stores invoices.", dataset_name="other")
    before = len(server.requests)
    with pytest.raises(InvalidAgenticDatasetScope, match="exactly one dataset"):
        await engine.recall(QUESTION, SearchType.AGENTIC_COMPLETION)
    assert len(server.requests) == before
    result = await agentic(engine, datasets=["other"])  # one named dataset runs
    assert result.text == ANSWER


async def test_zero_datasets_in_scope_are_refused(engine, server):
    store = engine.store()
    ctx = RetrievalContext(
        read=StoreReader(store, []),
        query_vector=engine.embedder.embed([QUESTION])[0],
        embed=lambda text: None,  # never reached
        config=AgenticConfig(),
        top_k=3,
        identity=Identity(tenant_id=store.tenant_id),
        reference_time=datetime(2024, 1, 1),
    )
    with pytest.raises(InvalidAgenticDatasetScope, match="has 0"):
        await AgenticCompletionRetriever().retrieve(QUESTION, ctx)
    assert server.requests == []


async def test_without_an_llm_it_refuses_before_retrieving(tmp_path, hash_embedder, engine, server):
    async with RecallEngine(tmp_path / "offline", embedder=hash_embedder) as offline:
        await offline.remember("The billing service moved to Postgres.", dataset_name="docs")
        with pytest.raises(LLMNotConfiguredError, match="AGENTIC_COMPLETION needs an LLM"):
            await offline.recall(QUESTION, SearchType.AGENTIC_COMPLETION)
    with pytest.raises(LLMNotConfiguredError, match="only_context"):
        await engine.recall(QUESTION, SearchType.AGENTIC_COMPLETION, only_context=True)
    assert server.requests == []


async def test_cypher_timeout_s_is_the_limit_of_each_cypher_step(engine, server, monkeypatch):
    limits: list[float] = []
    original = StoreReader.cypher

    async def recording(self, query, params=None, *, timeout_s=5.0, max_rows=1000):
        limits.append(timeout_s)
        return await original(self, query, params, timeout_s=timeout_s, max_rows=max_rows)

    monkeypatch.setattr(StoreReader, "cypher", recording)
    server.enqueue(step("cypher", COUNT), step("finish"))
    await agentic(engine, retriever_specific_config={"cypher_timeout_s": 0.5})
    assert limits == [0.5]
