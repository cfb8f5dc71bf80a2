"""recall() through the router and the completion step: RAG_COMPLETION end to end."""

import logging

import pytest
from pydantic import BaseModel, SecretStr

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.errors import (
    InvalidInputError,
    LLMPaymentRequiredError,
    UnsupportedSearchTypeError,
)
from recall_engine.testing import FakeLLMServer, ScriptedReply

DOCS = [
    Document(
        text="Einstein was born in Ulm. He worked at the patent office in Bern.", title="einstein"
    ),
    Document(text="The cafeteria serves vegan lunch on Fridays.", title="food"),
]


@pytest.fixture
def server():
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
async def llm_engine(tmp_path, hash_embedder, server):
    engine = RecallEngine(
        tmp_path,
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
        llm_api_key=SecretStr("test"),
        llm_max_retries=0,
    )
    await engine.remember(DOCS, dataset_name="facts")
    yield engine
    engine.close()


async def test_offline_rag_answer_is_extractive_and_sourced(engine):
    await engine.remember(DOCS, dataset_name="facts")
    (entry,) = await engine.recall("Where was Einstein born?", SearchType.RAG_COMPLETION)
    assert entry.kind == "rag_completion" and entry.source == "graph"
    assert entry.metadata["answer_mode"] == "extractive"
    assert "Ulm" in entry.text
    sources = entry.metadata["sources"]
    assert sources and sources[0]["document_name"] == "einstein"
    assert entry.metadata["answer_sources"][0]["document_name"] == "einstein"


async def test_only_context_skips_the_answer(engine):
    await engine.remember(DOCS, dataset_name="facts")
    (entry,) = await engine.recall(
        "Where was Einstein born?", SearchType.RAG_COMPLETION, only_context=True
    )
    assert entry.metadata["answer_mode"] == "context_only"
    assert "Einstein was born in Ulm" in entry.text
    assert len(entry.metadata["sources"]) == 2


async def test_llm_answer_uses_the_retrieved_context(llm_engine, server):
    server.enqueue("Einstein was born in Ulm.")
    (entry,) = await llm_engine.recall(
        "Where was Einstein born?", SearchType.RAG_COMPLETION, verbose=True
    )
    assert entry.text == "Einstein was born in Ulm."
    assert entry.metadata["answer_mode"] == "llm"
    assert "Einstein was born in Ulm" in server.last_request.message("user")
    assert entry.metadata["usage"]["completion_tokens"] > 0
    assert entry.metadata["sources"][0]["document_name"] == "einstein"


@pytest.mark.parametrize(
    "search_type",
    [SearchType.GRAPH_COMPLETION_COT, SearchType.GRAPH_COMPLETION_DECOMPOSITION],
)
async def test_usage_counts_every_llm_call_of_the_recall(llm_engine, server, search_type):
    server.reset()
    (entry,) = await llm_engine.recall("Where was Einstein born?", search_type, verbose=True)
    usage = entry.metadata["usage"]
    assert len(server.requests) > 1  # retrieval asked the model before the answer did
    assert usage["calls"] == len(server.requests)
    assert usage["model"] == "openai/fake-model"
    asked = sum(len(" ".join(m["content"] for m in r.messages).split()) for r in server.requests)
    assert usage["prompt_tokens"] == asked  # the fake counts words


async def test_system_prompt_override_reaches_the_model(llm_engine, server):
    await llm_engine.recall(
        "Where was Einstein born?", SearchType.RAG_COMPLETION, system_prompt="Answer in French."
    )
    assert server.last_request.message("system") == "Answer in French."


class Birthplace(BaseModel):
    person: str
    city: str


async def test_structured_output(llm_engine, server):
    server.enqueue('{"person": "Einstein", "city": "Ulm"}')
    (entry,) = await llm_engine.recall(
        "Where was Einstein born?", SearchType.RAG_COMPLETION, response_model=Birthplace
    )
    assert entry.kind == "structured"
    assert entry.structured == {"person": "Einstein", "city": "Ulm"}


async def test_two_different_response_models_are_refused(llm_engine):
    class Other(BaseModel):
        x: int

    with pytest.raises(InvalidInputError, match="disagree"):
        await llm_engine.recall(
            "q",
            SearchType.RAG_COMPLETION,
            response_model=Birthplace,
            retriever_specific_config={"response_model": Other},
        )


async def test_budget_exhausted_is_terminal(llm_engine, server):
    server.enqueue(ScriptedReply.error(402, "Payment required"))
    with pytest.raises(LLMPaymentRequiredError):
        await llm_engine.recall("Where was Einstein born?", SearchType.RAG_COMPLETION)
    assert len(server.requests) == 1


async def test_explicit_type_with_auto_route_logs_the_override(engine, caplog):
    await engine.remember(DOCS, dataset_name="facts")
    with caplog.at_level(logging.INFO, logger="query_router"):
        results = await engine.recall("Why was Einstein in Bern?", SearchType.CHUNKS)
    assert results[0].search_type == SearchType.CHUNKS
    assert "Router override recorded: routed=GRAPH_COMPLETION_COT, user_chose=CHUNKS" in caplog.text
    assert results[0].metadata["route"]["search_type"] == "GRAPH_COMPLETION_COT"


async def test_auto_route_off_skips_the_router(engine, caplog):
    await engine.remember(DOCS, dataset_name="facts")
    with caplog.at_level(logging.INFO, logger="query_router"):
        results = await engine.recall("Why Bern?", SearchType.CHUNKS, auto_route=False)
    assert "route" not in results[0].metadata
    assert "query_router" not in caplog.text


async def test_cypher_disabled(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path, embedder=hash_embedder, allow_cypher_query=False)
    await engine.remember(DOCS, dataset_name="facts")
    with pytest.raises(UnsupportedSearchTypeError, match="Cypher query search types are disabled"):
        await engine.recall("MATCH (n) RETURN n")
    with pytest.raises(UnsupportedSearchTypeError):
        await engine.recall("anything", SearchType.CYPHER)
    engine.close()


async def test_module_level_functions_use_the_default_engine(tmp_path, monkeypatch):
    import recall_engine
    from recall_engine import api

    monkeypatch.setenv("RECALL_ENGINE_DATA_DIR", str(tmp_path / "default"))
    api.reset_default_engine()
    from recall_engine.testing import DeterministicEmbedder

    monkeypatch.setattr(api, "RecallEngine", lambda: RecallEngine(embedder=DeterministicEmbedder()))
    try:
        stored = await recall_engine.remember("Module level memory about Kepler.")
        hits = await recall_engine.recall("Kepler", SearchType.CHUNKS_LEXICAL)
        assert hits[0].metadata["data_id"] == stored.data_ids[0]
        assert (tmp_path / "default" / "tenants" / "default").is_dir()
    finally:
        api.reset_default_engine()
