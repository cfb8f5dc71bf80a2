"""Session caches in recall(): cache hits, fall-through, history, writes, TTL, scoping."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from recall_engine import Document, RecallConfig, RecallEngine, ResponseQAEntry, SearchType
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.sessions import QARecord, SessionStore, matching_entries
from recall_engine.testing import FakeLLMServer

RAG = SearchType.RAG_COMPLETION
DOCS = [
    Document(text="Einstein was born in Ulm. He worked at the patent office in Bern.", title="e"),
    Document(text="The cafeteria serves vegan lunch on Fridays.", title="food"),
]


def _record(question: str, answer: str = "", context: str = "", at: float = 0.0) -> QARecord:
    return QARecord(
        qa_id=question,
        session_id="s",
        time=at,
        question=question,
        context=context,
        answer=answer,
        element_ids=(),
        dataset_ids=(),
    )


def test_only_the_same_question_matches_an_entry():
    entries = [
        _record("Where was Einstein born?", "Einstein was born in Ulm.", at=1),
        _record("What did Einstein work on?", "Einstein worked at the patent office.", at=2),
        _record("Where is the cafeteria?", "Einstein building, ground floor.", at=3),
    ]
    best = matching_entries("where was einstein born", entries, top_k=5)
    assert [e.qa_id for e in best] == ["Where was Einstein born?"]
    # words shared with an entry's answer or context do not make it an answer
    assert matching_entries("Was Einstein born in Ulm?", entries, top_k=5) == []
    assert matching_entries("einstein telescope", entries, top_k=5) == []
    assert matching_entries("the of and", entries, top_k=5) == []
    ctx = [_record("Lunch?", "Fridays.", context="The cafeteria serves vegan lunch")]
    assert matching_entries("vegan cafeteria lunch", ctx, top_k=5) == []
    # the same question asked twice: newest first
    twice = [*entries, _record("Where was Einstein born ?", "In Ulm.", at=4)]
    assert [e.answer for e in matching_entries("Where was Einstein born?", twice, top_k=5)] == [
        "In Ulm.",
        "Einstein was born in Ulm.",
    ]


def test_an_answer_cached_more_than_once_is_returned_once():
    question = "Where was Einstein born?"
    entries = [
        _record(question, "In Ulm.", at=1),
        _record("Where was Einstein born ?", "In Ulm.", at=2),
        _record(question, "Ulm, in 1879.", at=3),
    ]
    found = matching_entries(question, entries, top_k=5)
    assert [(e.answer, e.time) for e in found] == [("Ulm, in 1879.", 3), ("In Ulm.", 2)]


async def test_the_same_question_asked_again_is_cached_once(tmp_path, hash_embedder):
    """examples/sessions.py run twice on one data dir: one session hit, not two."""
    question = "Where was Einstein born?"
    qa_ids = []
    for _ in range(2):
        async with RecallEngine(tmp_path / "data", embedder=hash_embedder) as engine:
            await engine.remember(DOCS, dataset_name="facts")
            (answer,) = await engine.recall(question, RAG, session_id="s1")
            assert isinstance(answer, ResponseGraphEntry)
            qa_ids.append(str(answer.metadata["qa_id"]))
            (hit,) = await engine.recall("where was Einstein born, please", session_id="s1")
            assert isinstance(hit, ResponseQAEntry) and hit.qa_id == qa_ids[-1]
            await engine.add_feedback("s1", qa_ids[-1], score=5)
    assert qa_ids[0] == qa_ids[1]  # the rating of either run rates the one entry


async def test_a_session_hit_returns_qa_entries_and_stops(engine):
    await engine.remember(DOCS, dataset_name="facts")
    (answer,) = await engine.recall("Where was Einstein born?", RAG, session_id="s1")
    qa_id = answer.metadata["qa_id"]
    assert answer.metadata["session_id"] == "s1" and "Ulm" in answer.text
    hits = await engine.recall("where was Einstein born", session_id="s1")
    assert [type(h) for h in hits] == [ResponseQAEntry]
    (hit,) = hits
    assert (hit.qa_id, hit.source, hit.question) == (qa_id, "session", "Where was Einstein born?")
    assert "Ulm" in hit.answer and "Einstein was born in Ulm" in hit.context
    assert hit.feedback_score is None and hit.time.tzinfo is not None
    # another session, or a graph-scoped call, does not read the cache
    assert await engine.recall('"Einstein born" exact', session_id="s2")
    graph = await engine.recall("Where was Einstein born?", RAG, session_id="s1")
    assert graph[0].source == "graph"
    scoped = await engine.recall("where was Einstein born", datasets=["facts"], session_id="s1")
    assert scoped and all(r.source == "graph" for r in scoped)


async def test_a_miss_falls_through_to_the_graph(engine):
    await engine.remember(DOCS, dataset_name="facts")
    await engine.recall("Where was Einstein born?", RAG, session_id="s1")
    results = await engine.recall('"vegan lunch" exact', session_id="s1")
    assert results and all(r.source == "graph" for r in results)
    assert "vegan" in results[0].text


async def test_only_context_and_item_results_write_nothing(engine):
    await engine.remember(DOCS, dataset_name="facts")
    await engine.recall("Where was Einstein born?", RAG, session_id="s1", only_context=True)
    await engine.recall("Where was Einstein born?", SearchType.CHUNKS, session_id="s1")
    await engine.recall("zebra", SearchType.CHUNKS_LEXICAL, session_id="s1")
    (user,) = await engine.users()
    assert engine.sessions.entries("default", user.id, "s1") == []
    await engine.recall("Where was Einstein born?", RAG, session_id="s1")
    (entry,) = engine.sessions.entries("default", user.id, "s1")
    assert entry.element_ids and all(":" in e for e in entry.element_ids)
    assert entry.dataset_ids == ((await engine.datasets())[0].id,)


async def test_history_goes_to_the_llm_and_llm_answers_are_cached(tmp_path, hash_embedder):
    with FakeLLMServer() as server:
        engine = RecallEngine(
            tmp_path,
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test"),
            llm_max_retries=0,
        )
        try:
            await engine.remember(DOCS, dataset_name="facts")
            server.enqueue("He was born in Ulm.", "He worked in Bern.")
            (first,) = await engine.recall("Where was Einstein born?", RAG, session_id="chat")
            assert first.metadata["answer_mode"] == "llm" and first.metadata["qa_id"]
            assert "Previous conversation" not in server.last_request.message("user")
            await engine.recall("And where did he work?", RAG, session_id="chat")
            prompt = server.last_request.message("user")
            assert "Where was Einstein born?" in prompt and "He was born in Ulm." in prompt
            hits = await engine.recall("and where did he work", session_id="chat")
            assert [h.answer for h in hits if isinstance(h, ResponseQAEntry)][:1] == [
                "He worked in Bern."
            ]
        finally:
            engine.close()


async def test_sessions_belong_to_their_user(engine):
    await engine.remember(DOCS, dataset_name="facts")
    (default_user,) = await engine.users()
    bob = await engine.create_user("bob")
    await engine.recall("Where was Einstein born?", RAG, session_id="shared-id")
    assert engine.sessions.entries("default", bob.id, "shared-id") == []
    # bob cannot see the default user's facts, nor its session entry of the same id
    assert await engine.recall("where was Einstein born", session_id="shared-id", user=bob) == []
    (entry,) = engine.sessions.entries("default", default_user.id, "shared-id")
    with pytest.raises(InvalidInputError, match="No entry"):
        await engine.add_feedback("shared-id", entry.qa_id, score=5, user=bob)


async def test_sessions_survive_a_restart_and_expire_after_the_ttl(tmp_path, hash_embedder):
    data = tmp_path / "data"
    async with RecallEngine(data, embedder=hash_embedder) as engine:
        await engine.remember(DOCS, dataset_name="facts")
        await engine.recall("Where was Einstein born?", RAG, session_id="s")
    async with RecallEngine(data, embedder=hash_embedder, session_ttl_days=2) as engine:
        assert engine.sessions.ttl_s == 2 * 86400
        (hit,) = await engine.recall("where was Einstein born", session_id="s")
        assert isinstance(hit, ResponseQAEntry)
        now = engine.sessions.clock()
        engine.sessions.clock = lambda: now + 2 * 86400 + 1
        assert (await engine.recall("where was Einstein born", session_id="s"))[0].source == (
            "graph"
        )


def test_the_ttl_defaults_to_seven_days_and_counts_from_the_last_write(tmp_path, monkeypatch):
    monkeypatch.delenv("RECALL_ENGINE_SESSION_TTL_DAYS", raising=False)
    assert RecallConfig.load(data_dir=tmp_path).session_ttl_days == 7
    monkeypatch.setenv("RECALL_ENGINE_SESSION_TTL_DAYS", "0.5")
    assert RecallConfig.load(data_dir=tmp_path).session_ttl_days == 0.5
    now = [1000.0]
    store = SessionStore(tmp_path, ttl_s=100, clock=lambda: now[0])
    store.append("t", "u", "s", question="q1", context="", answer="a1")
    now[0] += 90
    store.append("t", "u", "s", question="q2", context="", answer="a2")
    now[0] += 90  # 180 s after the first entry, 90 after the last: alive
    assert [e.question for e in store.entries("t", "u", "s")] == ["q1", "q2"]
    now[0] += 11
    assert store.entries("t", "u", "s") == []
    store.append("t", "u", "other", question="q3", context="", answer="a3")  # purges
    now[0] -= 1000
    assert store.entries("t", "u", "s") == []
    store.close()
