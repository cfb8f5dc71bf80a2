"""Through recall(): coverage on every result list, [] for a query that matches
nothing, and offline answers that answer (the quickstart's question) with their origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_engine import SearchType

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
QUESTION = "What caused the outage that blocked the Difference Engine build?"
OTHER_INCIDENT = "INC-77: the Zephyr cache outage was caused by a full disk on the cache host."


@pytest.fixture
async def examples(engine):
    await engine.remember(EXAMPLES, dataset_name="examples")
    await engine.remember(OTHER_INCIDENT, dataset_name="other-incidents")
    return engine


@pytest.mark.parametrize(
    "query_type", [None, SearchType.CHUNKS, SearchType.CHUNKS_LEXICAL, SearchType.RAG_COMPLETION]
)
async def test_every_result_carries_coverage(examples, query_type):
    results = await examples.recall(QUESTION, query_type, top_k=5)
    assert results
    for entry in results:
        assert 0.0 <= entry.metadata["coverage"] <= 1.0
        assert isinstance(entry.metadata["coverage_low"], bool)
    assert len({e.metadata["coverage"] for e in results}) == 1  # one value per list


@pytest.mark.parametrize("query_type", [None, SearchType.CHUNKS, SearchType.GRAPH_COMPLETION])
async def test_a_query_that_matches_nothing_returns_an_empty_list(examples, query_type):
    assert await examples.recall("qwzx blorft znerg?", query_type) == []


async def test_a_question_about_someone_absent_has_low_coverage(examples):
    (answer,) = await examples.recall("Where does Bartholomew Quigley keep the connection pool?")
    assert answer.metadata["coverage_low"] is True
    assert answer.metadata["abstained"] is True
    assert answer.text.startswith("Not answered: the retrieved context gives little support")


async def test_the_quickstart_question_gets_the_outage_and_the_fix(examples):
    for datasets in (["examples"], None):  # scoped, and unscoped beside another incident
        (answer,) = await examples.recall(QUESTION, datasets=datasets, top_k=5)
        assert answer.metadata["answer_mode"] == "extractive"
        assert "database outage" in answer.text and "connection pool" in answer.text
        assert "Zephyr" not in answer.text
        assert answer.metadata["coverage_low"] is False


async def test_answer_entries_carry_the_dataset_and_data_item_of_their_evidence(examples):
    stored = await examples.list_datasets()
    (answer,) = await examples.recall(QUESTION, top_k=5)
    evidence = answer.metadata["answer_evidence"]
    assert evidence and all(e["data_id"] and e["chunk_id"] for e in evidence)
    assert answer.dataset_name == "examples"
    assert answer.dataset_id == stored["examples"] == evidence[0]["dataset_id"]
    assert answer.metadata["data_id"] == evidence[0]["data_id"]
