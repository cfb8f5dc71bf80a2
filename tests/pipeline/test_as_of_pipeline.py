"""With ``as_of``, the pipeline's own reads after the retriever (narrowing, tense,
coverage, the answer and its evidence) know only what was said by then, and
relative times ("last month") resolve no later than ``as_of``."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.testing import FakeLLMServer

THEN = "2024-01-01"
LATER = {"m2", "m3"}


@pytest.fixture
async def ann(engine: RecallEngine) -> RecallEngine:
    said = [
        ("m1", "I moved to Lyon on 3 March 2023", datetime(2023, 3, 10)),
        ("m2", "I moved to Oslo on 5 March 2023", datetime(2025, 1, 10)),
        ("m3", "My kayak is yellow", datetime(2025, 1, 11)),
    ]
    chat = Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in said]
    )
    await engine.remember(chat, dataset_name="ann")
    return engine


def _cited(result) -> set[str]:
    return {m for s in result.metadata["sources"] for m in s.get("message_ids") or []}


async def test_a_temporal_answer_as_of_rests_on_what_was_said_by_then(ann):
    (result,) = await ann.recall(
        "When did Ann move?",
        SearchType.TEMPORAL,
        datasets=["ann"],
        as_of=THEN,
        include_references=True,
    )
    assert result.text.startswith("Lyon"), result.text
    assert "Oslo" not in result.text  # neither in the answer nor in its evidence
    assert not _cited(result) & LATER
    (now,) = await ann.recall("When did Ann move?", SearchType.TEMPORAL, datasets=["ann"])
    assert _cited(now) & LATER  # today the move to Oslo is known


async def test_a_temporal_context_as_of_holds_nothing_said_later(ann):
    (context,) = await ann.recall(
        "When did Ann move?", SearchType.TEMPORAL, datasets=["ann"], as_of=THEN, only_context=True
    )
    assert "Lyon" in context.text
    assert "Oslo" not in context.text and not _cited(context) & LATER


@pytest.mark.parametrize("search_type", [SearchType.CHUNKS, SearchType.GRAPH_COMPLETION])
async def test_a_query_only_later_statements_match_matches_nothing_as_of(ann, search_type):
    # The kayak was first mentioned in 2025: as of 2024 the question matches nothing,
    # so no unrelated passage is offered as its answer.
    assert await ann.recall("kayak colour", search_type, datasets=["ann"], as_of=THEN) == []
    assert await ann.recall("kayak colour", SearchType.CHUNKS, datasets=["ann"])  # known today


async def test_last_month_as_of_is_the_month_before_as_of(engine):
    # Nothing was said in a conversation by then: "last month" is not taken from now.
    for text, when in [
        ("Ann went hiking in the Alps.", datetime(2024, 5, 20)),
        ("Ann went sailing in Norway.", datetime(2024, 9, 20)),
    ]:
        await engine.remember(Document(text=text, title=text, created_at=when), dataset_name="ann")
    (result,) = await engine.recall(
        "What did Ann do last month?",
        SearchType.TEMPORAL,
        datasets=["ann"],
        as_of="2024-06-15",
        only_context=True,
    )
    temporal = result.metadata["temporal"]
    assert temporal["reference_time"] == "2024-06-15T00:00:00"
    assert temporal["interval"].startswith("[2024-05-01T00:00:00, 2024-06-01T00:00:00)")
    assert "Alps" in result.text and "Norway" not in result.text


@pytest.fixture
def llm_server():
    with FakeLLMServer(default="Postgres.") as fake:
        yield fake


@pytest.mark.parametrize(
    "narrowing",
    [{"as_of": "2030-01-01"}, {"metadata_filters": {"team": "billing"}}, {"datasets": ["docs"]}],
    ids=["as_of", "metadata_filters", "datasets"],
)
async def test_a_filtered_agentic_call_is_not_offered_cypher(
    tmp_path, hash_embedder, llm_server, narrowing
):
    # A Cypher query reads the whole tenant graph, which a filtered call may not:
    # the agent is not offered a tool the read API would refuse, and the trace says why.
    engine = RecallEngine(
        tmp_path / "data",
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=llm_server.base_url,
        llm_api_key="test",
    )
    try:
        await engine.remember(
            Document(
                text="The billing service uses Postgres.", title="b", metadata={"team": "billing"}
            ),
            dataset_name="docs",
        )
        if "datasets" in narrowing:  # one dataset of two: Cypher would read both
            await engine.remember("Payroll runs on Fridays.", dataset_name="hr")
        llm_server.enqueue(json.dumps({"tool": "finish", "input": ""}))
        (result,) = await engine.recall(
            "Which database does billing use?",
            SearchType.AGENTIC_COMPLETION,
            verbose=True,
            **narrowing,
        )
    finally:
        engine.close()
    details = result.metadata["retrieval"]
    assert "cypher" not in details["tools"] and "as_of" in details["cypher"]
    prompt = next(
        r for r in llm_server.requests if "Observations so far:" in (r.message("user") or "")
    )
    assert "- cypher:" not in (prompt.message("user") or "")
