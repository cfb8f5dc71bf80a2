"""recall() knows the tense: the default recall, no LLM, over a subject whose home and
job changed, answers the present from current facts, the past from the period asked
about, and says in every context which facts were superseded, when and by what."""

import pytest
from pydantic import SecretStr

from recall_engine import Conversation, Message, RecallEngine, SearchType
from recall_engine.testing import FakeLLMServer

BEFORE = [
    ("A1", "I live in Lyon, near the old town.", "2023-01-05T10:00:00"),
    ("A2", "I work as a nurse at the city hospital.", "2023-01-05T10:01:00"),
]
AFTER = [
    (
        "B1",
        "Big news: I moved to Paris last week, I live in Montmartre now.",
        "2024-03-01T10:00:00",
    ),
    ("B2", "I quit nursing and I am now a software developer at a startup.", "2024-06-01T10:00:00"),
]


def _chat(turns):
    return Conversation(
        messages=[Message(id=i, speaker="Ann", text=t, timestamp=ts) for i, t, ts in turns]
    )


@pytest.fixture
async def ann(engine):
    await engine.remember(_chat(BEFORE), dataset_name="ann")
    later = await engine.remember(_chat(AFTER), dataset_name="ann")
    return engine, later.new_data_ids


async def _answer(engine, question, **kwargs):
    (result,) = await engine.recall(question, datasets=["ann"], **kwargs)
    assert result.metadata["answer_mode"] == "extractive"
    return result


@pytest.mark.parametrize(
    ("question", "wanted", "not_first"),
    [
        ("Where does Ann live now?", ["Paris (Montmartre)", "since March 2024", "Lyon"], "Lyon"),
        ("Where does Ann live?", ["Paris", "before that Lyon"], "Lyon"),
        ("What is Ann's job?", ["software developer", "since June 2024", "nurse"], "nurse"),
        ("Where did Ann live before Paris?", ["Lyon", "until March 2024"], "Montmartre"),
        ("What was Ann's job in 2023?", ["nurse"], "developer"),
    ],
)
async def test_the_five_questions_offline(ann, question, wanted, not_first):
    engine, _ = ann
    result = await _answer(engine, question)
    for part in wanted:
        assert part in result.text
    first = min(result.text.find(w) for w in wanted if w in result.text)
    assert not_first not in result.text[: max(first, 0) + len(wanted[0])]
    assert result.metadata["answer_type"] == "fact"


async def test_temporal_metadata_says_which_reading_ran(ann):
    engine, _ = ann
    now = await _answer(engine, "Where does Ann live now?")
    assert now.metadata["temporal"]["reading"] == "present"
    past = await _answer(engine, "Where did Ann live before Paris?")
    period = past.metadata["temporal"]["period"]
    assert past.metadata["temporal"]["reading"] == "past"
    assert (period["kind"], period["anchor"]) == ("before", "paris")
    assert period["start"].startswith("2023-01-05") and period["end"].startswith("2024-03-01")
    plain = await _answer(engine, "Tell me about the old town")
    assert plain.metadata["temporal"]["reading"] == "none"


async def test_context_labels_current_and_superseded_facts(ann):
    engine, _ = ann
    (context,) = await engine.recall(
        "Where does Ann live now?", datasets=["ann"], only_context=True
    )
    assert "[superseded] Ann lives_in Lyon" in context.text
    assert "until 2024-03-01; superseded by:" in context.text
    assert "[current] Ann lives_in Montmartre" in context.text


async def test_items_rank_current_first_and_carry_validity(ann):
    engine, _ = ann
    hits = await engine.recall(
        "Where does Ann live now?", query_type=SearchType.CHUNKS, datasets=["ann"], top_k=4
    )
    lyon = next(i for i, h in enumerate(hits) if "Lyon" in h.text)
    paris = next(i for i, h in enumerate(hits) if "Paris" in h.text)
    assert paris < lyon
    (fact,) = hits[lyon].metadata["facts"]
    assert fact["current"] is False and fact["valid_until"].startswith("2024-03-01")
    assert "superseded by" in fact["fact"]


async def test_forgetting_the_move_makes_lyon_current_again(ann):
    engine, later = ann
    await engine.forget(data_id=later)
    result = await _answer(engine, "Where does Ann live now?")
    assert result.text.startswith("Lyon")
    assert "before that" not in result.text


async def test_the_llm_is_given_facts_labelled_current_and_superseded(tmp_path, hash_embedder):
    with FakeLLMServer(default="Paris.") as server:
        engine = RecallEngine(
            tmp_path / "llm",
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test"),
            llm_max_retries=0,
            graph_extractor="rules",
        )
        try:
            await engine.remember(_chat(BEFORE + AFTER), dataset_name="ann")
            (result,) = await engine.recall("Where does Ann live now?", datasets=["ann"])
        finally:
            engine.close()
        prompt = server.last_request.message("user") or ""
    assert result.metadata["answer_mode"] == "llm" and result.text == "Paris."
    assert "[superseded] Ann lives_in Lyon" in prompt and "until 2024-03-01" in prompt
    assert "[current] Ann lives_in Montmartre" in prompt
