"""The scope stage reads in the event loop's thread when it reads only what this process
holds, and in a worker thread otherwise; recall answers the same either way."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from recall_engine import Document, SearchType
from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.identity.registry import IdentityRegistry
from recall_engine.pipeline.run import RecallPipeline

QUESTION = "Where does Ann live?"


@pytest.fixture
def scope_threads(monkeypatch) -> list[str]:
    """The name of the thread each scope resolution ran in."""
    seen: list[str] = []
    resolve = RecallPipeline._resolve_scope

    def spy(self, state):
        seen.append(threading.current_thread().name)
        resolve(self, state)

    monkeypatch.setattr(RecallPipeline, "_resolve_scope", spy)
    return seen


async def _texts(engine) -> list[str]:
    results = await engine.recall(QUESTION, SearchType.CHUNKS, only_context=True)
    return [r.text for r in results]


async def test_an_open_store_is_scoped_in_the_loops_thread(engine, scope_threads):
    await engine.remember(Document(text="Ann lives in Lyon."), dataset_name="notes")
    loop_thread = threading.current_thread().name
    first = await _texts(engine)
    second = await _texts(engine)
    third = await _texts(engine)
    assert first == second == third == ["Ann lives in Lyon."]
    # The write left the dataset list to be read from the graph again: a worker thread
    # reads it once, then it is cached.
    assert scope_threads[0] != loop_thread
    assert scope_threads[1:] == [loop_thread, loop_thread]


async def test_a_store_not_open_yet_is_opened_in_a_worker_thread(engine, scope_threads):
    await engine.remember(Document(text="Ann lives in Lyon."), dataset_name="notes")
    engine.close()
    from recall_engine import RecallEngine

    again = RecallEngine(engine.config.data_dir, embedder=engine.embedder)
    try:
        assert await _texts(again) == ["Ann lives in Lyon."]
        assert await _texts(again) == ["Ann lives in Lyon."]
    finally:
        again.close()
    loop_thread = threading.current_thread().name
    assert scope_threads[0] != loop_thread  # it opened the store: files, off the loop
    assert scope_threads[1] == loop_thread


async def test_an_expired_memory_is_forgotten_in_a_worker_thread(
    engine, scope_threads, monkeypatch
):
    from recall_engine.storage import expiry

    now = [time.time()]
    monkeypatch.setattr(expiry, "time", SimpleNamespace(time=lambda: now[0]))
    await engine.remember(Document(text="Ann lives in Lyon."), dataset_name="notes")
    brief = Document(text="Ann is in Paris this week.", metadata={EXPIRES_KEY: now[0] + 60})
    await engine.remember(brief, dataset_name="notes")
    loop_thread = threading.current_thread().name
    await _texts(engine)  # the dataset list is read once after the writes
    assert "Ann is in Paris this week." in await _texts(engine)
    assert scope_threads[-1] == loop_thread
    now[0] += 120
    assert await _texts(engine) == ["Ann lives in Lyon."]
    assert scope_threads[-1] != loop_thread  # the sweep deleted the expired item, off the loop


async def test_a_shared_identity_database_is_read_in_a_worker_thread(
    engine, scope_threads, monkeypatch
):
    await engine.remember(Document(text="Ann lives in Lyon."), dataset_name="notes")
    monkeypatch.setattr(IdentityRegistry, "in_process", property(lambda self: False))
    assert await _texts(engine) == ["Ann lives in Lyon."]
    assert len(scope_threads) == 1
    assert scope_threads[0] != threading.current_thread().name
