"""A cancelled remember() or forget() stops its worker thread and commits nothing.

The awaiting task (an asyncio cancel, ``asyncio.wait_for``'s timeout, an MCP
cancel, an HTTP disconnect) raises ``CancelledError`` only once the thread has
stopped, so a retry never races the cancelled call and ``close()`` never closes
the stores under it. Each test holds the thread at a known point with events, so
nothing here depends on timing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from recall_engine import Document, RecallEngine
from recall_engine.core.errors import InvalidInputError
from recall_engine.testing import DeterministicEmbedder

FIRST = Document(text="Einstein was born in Ulm in 1879.", title="einstein")
LATER = Document(text="Marie Curie discovered polonium in Paris.", title="curie")


class HeldEmbedder(DeterministicEmbedder):
    """Embeds as ``DeterministicEmbedder``; once ``hold()`` is called, the next call
    with texts sets ``entered`` and waits for ``release``."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self._armed = False

    def hold(self) -> None:
        self.entered.clear()
        self.release.clear()
        self._armed = True

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if self._armed and len(texts) > 0:
            self._armed = False
            self.entered.set()
            assert self.release.wait(60), "the test never released the embedder"
        return super().embed(texts, batch_size=batch_size)


@pytest.fixture
def held() -> HeldEmbedder:
    return HeldEmbedder()


@pytest.fixture
async def filled(tmp_path, held):
    """An engine that holds FIRST, with the held embedder."""
    engine = RecallEngine(tmp_path / "data", embedder=held)
    await engine.remember(FIRST, dataset_name="notes")
    yield engine
    engine.close()


def _counts(engine: RecallEngine) -> tuple[int, int, int]:
    store = engine.store()
    return len(store.index), store.vectors.count(), len(store.graph.document_ids())


async def _settled(engine: RecallEngine) -> None:
    """Wait for any write still running in a worker thread (it holds the write lock)."""

    def wait() -> None:
        with engine.store().write_lock:
            pass

    await asyncio.to_thread(wait)


async def _until(predicate: Callable[[], bool]) -> None:
    while not predicate():
        await asyncio.sleep(0)


async def test_cancelled_remember_stores_nothing_and_a_retry_stores_once(filled, held):
    before = _counts(filled)
    held.hold()
    task = asyncio.create_task(filled.remember(LATER, dataset_name="notes"))
    await asyncio.to_thread(held.entered.wait)
    task.cancel()
    held.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _settled(filled)
    assert _counts(filled) == before

    again = await filled.remember(LATER, dataset_name="notes")
    assert len(again.new_data_ids) == 1 and again.skipped_data_ids == []
    chunks, vectors, items = _counts(filled)
    assert (chunks, items) == (before[0] + 1, before[2] + 1)
    assert vectors > before[1]


async def test_remember_past_its_wait_for_timeout_stores_nothing(filled, held):
    before = _counts(filled)
    held.hold()
    inner = asyncio.ensure_future(filled.remember(LATER, dataset_name="notes"))
    outer = asyncio.create_task(asyncio.wait_for(inner, timeout=0.01))
    await asyncio.to_thread(held.entered.wait)
    await _until(lambda: inner.cancelling() > 0 or inner.done())  # the timeout fired
    held.release.set()
    with pytest.raises(TimeoutError):
        await outer
    assert inner.cancelled()
    await _settled(filled)
    assert _counts(filled) == before


async def test_close_during_remember_waits_and_stores_nothing(tmp_path, filled, held):
    before = _counts(filled)
    held.hold()
    task = asyncio.create_task(filled.remember(LATER, dataset_name="notes"))
    await asyncio.to_thread(held.entered.wait)
    closing = asyncio.create_task(asyncio.to_thread(filled.close))
    await _until(lambda: filled._closed)  # close() has begun: it stops the ingest first
    held.release.set()
    await closing
    with pytest.raises(InvalidInputError, match="closed"):
        await task
    reopened = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        assert _counts(reopened) == before
    finally:
        reopened.close()


async def test_cancelled_forget_deletes_nothing(filled, monkeypatch):
    (data_id,) = filled.store().graph.document_ids()
    before = _counts(filled)
    entered, release = threading.Event(), threading.Event()
    check = filled._access.forgettable

    def held_check(*args: object) -> str | None:
        entered.set()
        assert release.wait(60), "the test never released forget()"
        return check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(filled._access, "forgettable", held_check)
    task = asyncio.create_task(filled.forget(data_id=data_id))
    await asyncio.to_thread(entered.wait)
    task.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _settled(filled)
    assert _counts(filled) == before

    monkeypatch.setattr(filled._access, "forgettable", check)
    assert await filled.forget(data_id=data_id) == 1
    assert not filled.store().graph.document_ids()


async def test_a_cancel_during_the_commit_is_raised_after_it(filled, monkeypatch):
    """Once the commit has begun it completes; the cancel is raised after it."""
    store = filled.store()
    before = _counts(filled)
    entered, release = threading.Event(), threading.Event()
    commit = store.commit_ingest

    def held_commit(**kwargs: object) -> None:
        entered.set()
        assert release.wait(60), "the test never released the commit"
        commit(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "commit_ingest", held_commit)
    task = asyncio.create_task(filled.remember(LATER, dataset_name="notes"))
    await asyncio.to_thread(entered.wait)
    task.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _counts(filled)[2] == before[2] + 1  # stored, with no wait: the thread has ended
    again = await filled.remember(LATER, dataset_name="notes")
    assert again.new_data_ids == [] and len(again.skipped_data_ids) == 1


async def test_a_closed_engine_refuses_writes(filled):
    filled.close()
    with pytest.raises(InvalidInputError, match="closed"):
        await filled.remember(LATER, dataset_name="notes")
    with pytest.raises(InvalidInputError, match="closed"):
        await filled.forget(dataset_name="notes")
