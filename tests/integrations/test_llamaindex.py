"""RecallRetriever as a LlamaIndex retriever, in a real RetrieverQueryEngine with
llama-index-core's MockLLM, against an embedded and a remote engine."""

from __future__ import annotations

import pytest
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode

from recall_engine import RecallEngine
from recall_engine.integrations.llamaindex import RecallRetriever
from tests.integrations.conftest import NOTES, QUESTION


async def test_nodes_carry_score_and_provenance(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=2, datasets=["notes"])
    nodes = await retriever.aretrieve(QUESTION)
    assert nodes[0].node.get_content() == NOTES[0]
    for found in nodes:
        metadata = found.node.metadata
        assert found.score == metadata["score"] and isinstance(found.score, float)
        assert metadata["search_type"] == "CHUNKS" and metadata["dataset_name"] == "notes"
        (source,) = metadata["sources"]
        assert source["chunk_id"] == found.node.node_id == metadata["chunk_id"]
    llm_view = nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    assert "dataset_name: notes" in llm_view and "sources" not in llm_view


async def test_an_answer_does_not_take_the_id_of_a_chunk_it_rests_on(memory):
    retriever = RecallRetriever(memory, query_type="GRAPH_COMPLETION", datasets=["notes"])
    (answer,) = await retriever.aretrieve(QUESTION)
    sources = answer.node.metadata["sources"]
    assert answer.node.metadata["kind"] == "graph_completion" and sources
    assert answer.node.node_id not in {s["chunk_id"] for s in sources}


async def test_a_query_engine_with_a_mock_llm_answers_from_the_memory(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=1, datasets=["notes"])
    query_engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = await query_engine.aquery(QUESTION)
    assert NOTES[0] in str(response)  # MockLLM echoes its prompt, the context included
    (source,) = response.source_nodes
    assert source.node.metadata["sources"][0]["data_id"] == source.node.metadata["data_id"]
    again = query_engine.query(QUESTION)  # the sync API, inside a running event loop
    assert [n.node.node_id for n in again.source_nodes] == [source.node.node_id]


async def test_recall_options_pass_through(memory):
    retriever = RecallRetriever(memory, query_type="CHUNKS", top_k=5, datasets=["archive"])
    nodes = await retriever.aretrieve("Mark II relay")
    assert [n.node.metadata["dataset_name"] for n in nodes] == ["archive"]


def test_bad_engines_and_options_are_refused():
    with pytest.raises(TypeError, match="engine must be a RecallEngine"):
        RecallRetriever(object())
    with pytest.raises(TypeError, match=r"unknown recall option\(s\) \['k'\]"):
        RecallRetriever(RecallEngine.connect("http://127.0.0.1:9"), k=3)
