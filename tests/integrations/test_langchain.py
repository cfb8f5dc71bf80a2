"""RecallRetriever as a LangChain retriever, in real langchain-core chains, against
an embedded and a remote engine."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from recall_engine import RecallEngine
from recall_engine.integrations.langchain import RecallRetriever
from recall_engine.testing import DeterministicEmbedder
from tests.integrations.conftest import NOTES, OTHER, QUESTION, fill


def _check_provenance(doc, *, dataset: str = "notes") -> None:
    metadata = doc.metadata
    assert metadata["search_type"] == "CHUNKS" and metadata["source"] == "graph"
    assert metadata["dataset_name"] == dataset and metadata["dataset_id"]
    assert isinstance(metadata["score"], float)
    (source,) = metadata["sources"]
    assert source["chunk_id"] == doc.id == metadata["chunk_id"]
    assert source["data_id"] == metadata["data_id"]


async def test_the_retriever_returns_documents_with_their_provenance(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=2, datasets=["notes"])
    docs = await retriever.ainvoke(QUESTION)
    assert docs[0].page_content == NOTES[0]
    assert {d.page_content for d in docs} <= set(NOTES)  # only the dataset asked for
    for doc in docs:
        _check_provenance(doc)
    assert docs[0].metadata["shelf"] == "computing"  # the caller's metadata too


async def test_an_answer_does_not_take_the_id_of_a_chunk_it_rests_on(memory):
    retriever = RecallRetriever(memory, query_type="GRAPH_COMPLETION", datasets=["notes"])
    (answer,) = await retriever.ainvoke(QUESTION)
    assert answer.metadata["kind"] == "graph_completion" and answer.metadata["sources"]
    assert answer.id is None  # made anew: no id, so no collision with a chunk's document


async def test_a_chain_with_a_fake_llm_gets_the_context(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=1, datasets=["notes"])
    prompts: list[str] = []

    def keep(prompt):
        prompts.append(prompt.to_string())
        return prompt

    chain = (
        {
            "context": retriever
            | RunnableLambda(lambda docs: "\n".join(d.page_content for d in docs)),
            "question": RunnablePassthrough(),
        }
        | PromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
        | RunnableLambda(keep)
        | FakeListLLM(responses=["A moth."])
    )
    assert await chain.ainvoke(QUESTION) == "A moth."
    assert prompts == [f"Context:\n{NOTES[0]}\n\nQuestion: {QUESTION}"]


async def test_invoke_works_inside_a_running_event_loop(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=1, only_context=True)
    (doc,) = retriever.invoke(QUESTION)  # the sync API, called from async code
    assert doc.page_content == NOTES[0]
    assert retriever.recall_options == {"only_context": True}


async def test_options_pass_through_to_recall(memory):
    retriever = RecallRetriever(
        memory, query_type="CHUNKS", top_k=5, metadata_filters={"shelf": "computing"}
    )
    docs = await retriever.ainvoke("Mark II relay")
    assert {d.page_content for d in docs} == set(NOTES)  # the archive note has no shelf
    routed = await RecallRetriever(memory, top_k=3).ainvoke(QUESTION)
    assert routed and "route" in routed[0].metadata


async def test_top_k_and_datasets_in_recall_options_are_honoured(memory):
    options = {"top_k": 1, "datasets": ["notes"], "only_context": True}
    retriever = RecallRetriever(memory, query_type="CHUNKS", recall_options=options)
    (doc,) = await retriever.ainvoke(QUESTION)
    assert doc.page_content == NOTES[0]
    assert (retriever.top_k, retriever.recall_options) == (1, {"only_context": True})
    with pytest.raises(TypeError, match="top_k is given twice"):
        RecallRetriever(memory, top_k=2, recall_options={"top_k": 3})


def test_invoke_works_without_an_event_loop(tmp_path):
    async def build() -> RecallEngine:
        engine = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
        await fill(engine)
        return engine

    engine = asyncio.run(build())
    try:
        retriever = RecallRetriever(engine=engine, query_type="CHUNKS_LEXICAL", top_k=1)
        (doc,) = retriever.invoke("east archive drawer")
        assert doc.page_content == OTHER and doc.metadata["dataset_name"] == "archive"
        assert doc.metadata["search_type"] == "CHUNKS_LEXICAL"
    finally:
        engine.close()


def test_bad_engines_and_options_are_refused():
    with pytest.raises(TypeError, match="engine must be a RecallEngine"):
        RecallRetriever("http://localhost:8000")
    with pytest.raises(TypeError, match=r"unknown recall option\(s\) \['topk'\]"):
        RecallRetriever(RecallEngine.connect("http://127.0.0.1:9"), topk=3)
