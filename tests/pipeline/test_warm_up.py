"""The embedding model starts loading as an engine's first recall begins
(``embedding.warm``), beside the store's open, once per pipeline."""

from __future__ import annotations

import threading

from recall_engine import RecallEngine
from recall_engine.embedding import WrappedEmbedder
from recall_engine.embedding.warm import warm_up_soon
from recall_engine.testing import DeterministicEmbedder


class Warming(DeterministicEmbedder):
    """Records the threads its ``warm_up`` ran in; fails when told to."""

    def __init__(self, *, fail: bool = False) -> None:
        super().__init__()
        self.fail = fail
        self.threads: list[str] = []
        self.done = threading.Event()

    def warm_up(self) -> None:
        self.threads.append(threading.current_thread().name)
        self.done.set()
        if self.fail:
            raise RuntimeError("no model here")


async def test_the_first_recall_starts_the_model_loading_once(tmp_path):
    embedder = Warming()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    await engine.remember("Ann moved to Lyon in 2021.", dataset_name="notes")
    assert embedder.threads == []  # remembering embeds on its own; no warm-up asked
    assert await engine.recall("Where does Ann live?", datasets=["notes"], only_context=True)
    assert embedder.done.wait(10)
    assert embedder.threads == ["recall-engine-warm-up"]  # not the event loop's thread
    await engine.recall("Lyon", datasets=["notes"], only_context=True)
    assert embedder.threads == ["recall-engine-warm-up"]  # once per engine
    engine.close()


async def test_a_failed_warm_up_leaves_the_recall_to_report_or_succeed(tmp_path):
    embedder = Warming(fail=True)
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    await engine.remember("Ann moved to Lyon in 2021.", dataset_name="notes")
    assert await engine.recall("Where does Ann live?", datasets=["notes"], only_context=True)
    assert embedder.done.wait(10)
    engine.close()


def test_warm_up_is_found_through_wrappers_and_skipped_without_one():
    inner = Warming()
    thread = warm_up_soon(WrappedEmbedder(inner))
    assert thread is not None and not thread.daemon  # joined at interpreter exit
    thread.join(10)
    assert inner.threads == ["recall-engine-warm-up"]
    assert warm_up_soon(DeterministicEmbedder()) is None
