"""FEELING_LUCKY through recall(): the LLM's pick runs; an unusable pick falls
back to RAG_COMPLETION; offline the router's pick runs; results report the type
that ran."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.testing import FakeLLMServer

QUESTION = "Which database does the billing service use?"
ANSWER = "The billing service uses Postgres."
DOCS = [
    Document(text="The billing service moved to Postgres in March.", title="billing"),
    Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
]


@pytest.fixture
def server():
    with FakeLLMServer(default=ANSWER) as fake:
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
    await eng.remember(DOCS, dataset_name="docs")
    yield eng
    eng.close()


@pytest.fixture
async def offline(tmp_path, hash_embedder):
    async with RecallEngine(tmp_path / "offline", embedder=hash_embedder) as eng:
        await eng.remember(DOCS, dataset_name="docs")
        yield eng


def lucky(results):
    assert results
    ran = results[0].search_type
    assert all(r.search_type is ran for r in results)
    return ran, results[0].metadata["retrieval"]["feeling_lucky"]


async def test_the_llm_pick_runs_and_is_reported(engine, server):
    server.enqueue("`CHUNKS_LEXICAL`")
    results = await engine.recall(QUESTION, SearchType.FEELING_LUCKY, verbose=True)
    ran, chose = lucky(results)
    assert ran is SearchType.CHUNKS_LEXICAL and {r.kind for r in results} == {"chunk"}
    assert chose == {"chose": "CHUNKS_LEXICAL", "by": "llm"}
    offered = server.requests[0].message("user") or ""
    assert "CHUNKS_LEXICAL" in offered and "FEELING_LUCKY" not in offered
    assert len(server.requests) == 1  # an item type: no answer call


async def test_an_unusable_pick_falls_back_to_rag_completion(engine, server):
    server.enqueue("Hard to say, maybe something clever.")
    results = await engine.recall(QUESTION, SearchType.FEELING_LUCKY, verbose=True)
    ran, chose = lucky(results)
    assert ran is SearchType.RAG_COMPLETION
    assert chose == {"chose": "RAG_COMPLETION", "by": "llm (unusable choice: fallback)"}
    assert results[0].kind == "rag_completion" and results[0].text == ANSWER
    assert len(server.requests) == 2  # the pick, then the answer


async def test_offline_the_routers_pick_runs_and_is_reported(offline):
    query = '"billing service"'
    results = await offline.recall(query, SearchType.FEELING_LUCKY, verbose=True)
    ran, chose = lucky(results)
    assert results[0].metadata["route"]["search_type"] == ran.value
    assert ran is SearchType.CHUNKS_LEXICAL  # the router's quoted-phrase rule
    assert chose == {"chose": "CHUNKS_LEXICAL", "by": "router"}
    assert {r.kind for r in results} == {"chunk"}


async def test_offline_without_a_router_pick_it_falls_back(offline):
    results = await offline.recall(
        QUESTION, SearchType.FEELING_LUCKY, auto_route=False, verbose=True
    )
    ran, chose = lucky(results)
    assert ran is SearchType.RAG_COMPLETION
    assert chose == {"chose": "RAG_COMPLETION", "by": "router (unusable choice: fallback)"}
    assert results[0].metadata["answer_mode"] == "extractive"


async def test_only_context_uses_the_router_and_calls_no_llm(engine, server):
    results = await engine.recall(QUESTION, SearchType.FEELING_LUCKY, only_context=True)
    assert results and results[0].search_type is SearchType.GRAPH_COMPLETION
    assert server.requests == []
