"""recall(..., as_of=...) answers as of that time on every surface: the engine, the
module API, the remote client, HTTP /api/v1/recall and the MCP recall tool."""

from datetime import datetime

import httpx
import pytest

from recall_engine import Conversation, InvalidInputError, Message, RecallEngine, SearchType
from recall_engine.mcp import McpSettings
from tests.engine.test_tense_recall import AFTER, BEFORE
from tests.mcp.conftest import connect
from tests.remote_fixture import API_KEY, serve

QUESTION = "Where does Ann live?"
MID_2023 = datetime(2023, 6, 1)


def _chat():
    return Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in BEFORE + AFTER]
    )


@pytest.fixture
async def ann(engine):
    await engine.remember(_chat(), dataset_name="ann")
    return engine


@pytest.mark.parametrize("as_of", [MID_2023, "2023-06-01", "2023-06-01T00:00:00+00:00"])
async def test_as_of_answers_what_held_then(ann, as_of):
    (result,) = await ann.recall(QUESTION, datasets=["ann"], as_of=as_of)
    assert result.text.startswith("Lyon")
    assert "Paris" not in result.text
    temporal = result.metadata["temporal"]
    assert temporal["reading"] == "as_of" and temporal["as_of"] == "2023-06-01T00:00:00"


async def test_as_of_keeps_what_was_stated_later_out_of_the_context(ann):
    (context,) = await ann.recall(QUESTION, datasets=["ann"], as_of=MID_2023, only_context=True)
    assert "Lyon" in context.text
    assert "Montmartre" not in context.text.split("Facts over time")[0]
    (now,) = await ann.recall(QUESTION, datasets=["ann"], only_context=True)
    assert "Montmartre" in now.text


@pytest.mark.parametrize(
    "search_type",
    [SearchType.GRAPH_COMPLETION, SearchType.TRIPLET_COMPLETION, SearchType.SUMMARIES],
)
async def test_as_of_drops_relations_and_summaries_stated_later(ann, search_type):
    # Relations, entities and summaries have no time of their own: the chunks they
    # rest on tell when they were stated, and those stated in 2024 are not known in 2023.
    later = {i for i, _, _ in AFTER}
    results = await ann.recall(
        QUESTION, search_type, datasets=["ann"], as_of=MID_2023, only_context=True
    )
    assert results
    for result in results:
        context = result.text.split("Facts over time")[0]
        assert "moved_to" not in context and "Montmartre" not in context
        cited = {m for s in result.metadata["sources"] for m in s["message_ids"]}
        assert not cited & later, cited
    now = await ann.recall(QUESTION, search_type, datasets=["ann"], only_context=True)
    assert any("Montmartre" in r.text for r in now)  # without as_of, 2024 is known


async def test_as_of_before_anything_was_stated_finds_nothing_to_answer_from(ann):
    results = await ann.recall(QUESTION, datasets=["ann"], as_of="2020-01-01", only_context=True)
    assert all("Lyon" not in r.text.split("Facts over time")[0] for r in results)


async def test_a_session_keeps_answers_of_now_and_of_as_of_apart(ann):
    (now,) = await ann.recall(QUESTION, session_id="s")
    (then,) = await ann.recall(QUESTION, session_id="s", as_of=MID_2023)
    assert then.source == "graph" and then.text.startswith("Lyon")  # not the cached Paris
    assert "qa_id" not in then.metadata  # an answer as of 2023 is not cached for later
    (again,) = await ann.recall(QUESTION, session_id="s")
    assert again.source == "session" and again.answer == now.text


async def test_after_the_move_as_of_answers_paris(ann):
    (result,) = await ann.recall(QUESTION, datasets=["ann"], as_of="2024-04-01")
    assert result.text.startswith("Paris")
    assert "before that Lyon" in result.text


@pytest.mark.parametrize("bad", ["last spring", "2023-13-01", 20230601, ["2023"]])
async def test_a_bad_as_of_is_refused_and_names_the_option(ann, bad):
    with pytest.raises(InvalidInputError, match="as_of"):
        await ann.recall(QUESTION, datasets=["ann"], as_of=bad)


async def test_module_api_takes_as_of(tmp_path, monkeypatch, hash_embedder):
    import recall_engine
    from recall_engine import api

    monkeypatch.setenv("RECALL_ENGINE_DATA_DIR", str(tmp_path / "default"))
    api.reset_default_engine()
    monkeypatch.setattr(api, "RecallEngine", lambda: RecallEngine(embedder=hash_embedder))
    try:
        await recall_engine.remember(_chat(), dataset_name="ann")
        (result,) = await recall_engine.recall(QUESTION, datasets=["ann"], as_of=MID_2023)
    finally:
        api.reset_default_engine()
    assert result.text.startswith("Lyon")


async def test_remote_client_and_http_take_as_of(ann):
    served = serve(ann)
    try:
        remote = served.connect()
        try:
            (result,) = await remote.recall(QUESTION, datasets=["ann"], as_of=MID_2023)
        finally:
            await remote.aclose()
        async with httpx.AsyncClient(base_url=served.url) as client:
            reply = await client.post(
                "/api/v1/recall",
                json={"query_text": QUESTION, "datasets": ["ann"], "as_of": "2023-06-01"},
                headers={"Authorization": f"Bearer {API_KEY}"},
            )
            bad = await client.post(
                "/api/v1/recall",
                json={"query_text": QUESTION, "as_of": "someday"},
                headers={"Authorization": f"Bearer {API_KEY}"},
            )
    finally:
        served.stop()
    assert result.text.startswith("Lyon")
    assert reply.status_code == 200, reply.text
    assert reply.json()[0]["text"].startswith("Lyon")
    assert bad.status_code in (400, 422) and "as_of" in bad.text


async def test_mcp_recall_takes_as_of(ann):
    async with connect(ann, McpSettings()) as session:
        out = await session.call("recall", query=QUESTION, datasets=["ann"], as_of="2023-06-01")
    assert out["results"][0]["text"].startswith("Lyon")
