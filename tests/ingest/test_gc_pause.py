"""The cyclic collector is off while an ingest runs and comes back after: full
collections in the middle of an ingest held the GIL for 250-350 ms and stalled
the event loop (bench.loop_stall)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from recall_engine import Document, RecallEngine
from recall_engine.core.errors import EmbeddingError
from recall_engine.ingest.gc_pause import gc_paused
from recall_engine.testing import DeterministicEmbedder


class ProbeEmbedder(DeterministicEmbedder):
    """Records whether the collector was on at each embed call; can fail."""

    def __init__(self, *, fail: bool = False) -> None:
        super().__init__()
        self.seen: list[bool] = []
        self.fail = fail

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        self.seen.append(gc.isenabled())
        if self.fail:
            return np.zeros((len(texts), 3), dtype=np.float32)  # wrong dimension
        return super().embed(texts, batch_size=batch_size)


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


async def test_an_ingest_runs_with_the_collector_off_and_restores_it(
    tmp_path, collector_on
) -> None:
    embedder = ProbeEmbedder()
    eng = RecallEngine(tmp_path / "data", embedder=embedder)
    try:
        await eng.remember(Document(text="Ada Lovelace lived in London."), dataset_name="d")
    finally:
        eng.close()
    assert embedder.seen and not any(embedder.seen)
    assert gc.isenabled()


async def test_a_failed_ingest_restores_the_collector(tmp_path, collector_on) -> None:
    eng = RecallEngine(tmp_path / "data", embedder=ProbeEmbedder(fail=True))
    try:
        with pytest.raises(EmbeddingError):
            await eng.remember(Document(text="Ada Lovelace lived in London."), dataset_name="d")
    finally:
        eng.close()
    assert gc.isenabled()


def test_overlapping_pauses_restore_once_and_respect_an_application_that_turned_it_off(
    collector_on,
) -> None:
    outer = gc_paused()
    outer.__enter__()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other ingest is still running
    outer.__exit__(None, None, None)
    assert gc.isenabled()
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()
