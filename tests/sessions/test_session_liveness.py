"""A session's cached answer lives only while every chunk it rests on is still stored:
forget(), a new version of a document and expiry take it out of the cache and the
history, as they take the chunks out of the memory."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from recall_engine import Document, RecallEngine, ResponseQAEntry
from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.pipeline import session
from recall_engine.sessions import SessionStore

QUESTION = "Where was Einstein born?"
ULM = "Einstein was born in Ulm."
OTHER = Document(text="The cafeteria serves vegan lunch on Fridays.", title="food")


async def _cached(engine: RecallEngine) -> None:
    (first,) = await engine.recall(QUESTION, session_id="s1")
    assert first.text == "Ulm"
    (again,) = await engine.recall(QUESTION, session_id="s1")
    assert isinstance(again, ResponseQAEntry) and ULM in again.context  # cached


async def _not_from_session(engine: RecallEngine, forgotten: str = ULM) -> None:
    results = await engine.recall(QUESTION, session_id="s1")
    for result in results:
        assert not isinstance(result, ResponseQAEntry), result
        assert forgotten not in result.text


async def test_forget_data_id_drops_the_cached_answer(engine: RecallEngine) -> None:
    kept = await engine.remember([Document(text=ULM, title="e"), OTHER], dataset_name="physics")
    await _cached(engine)
    ulm = next(d for d in kept.data_ids if d != kept.data_ids[-1])
    assert await engine.forget(data_id=ulm)
    await _not_from_session(engine)


async def test_forget_dataset_then_recreate_drops_the_cached_answer(engine: RecallEngine) -> None:
    await engine.remember([Document(text=ULM, title="e"), OTHER], dataset_name="physics")
    await _cached(engine)
    await engine.forget(dataset_name="physics")
    await engine.remember(OTHER, dataset_name="physics")  # the same name again, readable
    await _not_from_session(engine)


async def test_a_new_version_of_a_document_drops_the_cached_answer(engine: RecallEngine) -> None:
    await engine.remember(
        [Document(text=ULM, title="e", source_id="bio"), OTHER], dataset_name="physics"
    )
    await _cached(engine)
    newer = Document(text="Einstein was born in Munich.", title="e", source_id="bio")
    await engine.remember(newer, dataset_name="physics")
    await _not_from_session(engine)


async def test_an_expired_memory_drops_the_cached_answer(
    engine: RecallEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall_engine.storage import expiry

    now = [time.time()]
    monkeypatch.setattr(expiry, "time", SimpleNamespace(time=lambda: now[0]))
    brief = Document(text=ULM, title="e", metadata={EXPIRES_KEY: now[0] + 60})
    await engine.remember([brief, OTHER], dataset_name="physics")
    await _cached(engine)
    now[0] += 120
    await _not_from_session(engine)


async def test_the_history_leaves_out_an_entry_whose_chunks_are_gone(
    engine: RecallEngine,
) -> None:
    kept = await engine.remember([Document(text=ULM, title="e"), OTHER], dataset_name="physics")
    await _cached(engine)
    await engine.forget(data_id=kept.data_ids[0])
    alive = engine.store().index.alive
    history = session.load_session(
        engine.sessions, "default", _user(engine), "s1", _readable(engine), alive=alive
    )
    assert history.entries == ()  # forget() deleted it; a load would not show it either


def test_a_load_reads_the_most_recent_entries_only(tmp_path) -> None:
    store = SessionStore(tmp_path)
    cap = session.MAX_SESSION_ENTRIES
    for n in range(cap + 5):
        store.append(
            "t",
            "u",
            "s",
            question=f"q{n}",
            context="",
            answer=f"a{n}",
            element_ids=(),
            dataset_ids=(),
        )
    history = session.load_session(store, "t", "u", "s", {})
    assert len(history.entries) == cap
    assert history.entries[-1].answer == f"a{cap + 4}"  # the newest are kept
    assert history.entries[0].answer == "a5"


def _user(engine: RecallEngine) -> str:
    return engine.identity.resolve_user("default", None).id


def _readable(engine: RecallEngine) -> dict[str, object]:
    store = engine.store()
    user = engine.identity.resolve_user("default", None)
    return dict(engine.identity.access("default", user, store.datasets()))
