"""An ingest's stop flag: checked before each embedding window and before the commit."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine import Document, RecallEngine
from recall_engine.ingest.embed_batches import WINDOW_BATCHES
from recall_engine.ingest.ingestor import ingest
from recall_engine.ingest.sources import collect_sources
from recall_engine.ingest.stop import WriteStopped
from recall_engine.testing import DeterministicEmbedder


class StopsAfterOneCall(DeterministicEmbedder):
    """Sets ``stop`` once it has embedded one call's texts."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self.stop = stop
        self.calls = 0

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if len(texts) > 0:
            self.calls += 1
            self.stop.set()
        return super().embed(texts, batch_size=batch_size)


def _ingest(engine: RecallEngine, embedder: DeterministicEmbedder, stop: threading.Event) -> None:
    notes = [Document(text=f"Note {i} says the kettle number {i} whistles.") for i in range(40)]
    ingest(
        engine.store(create=True),
        embedder,
        engine.config,
        collect_sources(notes).items,
        dataset_id="d1",
        dataset_name="notes",
        stop=stop,
    )


@pytest.mark.parametrize("graph_extractor", ["none", "rules"])
def test_a_stop_between_embedding_windows_stores_nothing(tmp_path, graph_extractor):
    stop = threading.Event()
    embedder = StopsAfterOneCall(stop)
    engine = RecallEngine(
        tmp_path / "data",
        embedder=embedder,
        embedding_batch_size=1,  # a window of WINDOW_BATCHES texts: 40 notes take several
        graph_extractor=graph_extractor,
    )
    try:
        assert WINDOW_BATCHES < 40
        with pytest.raises(WriteStopped):
            _ingest(engine, embedder, stop)
        assert embedder.calls == 1  # the next window was not embedded
        store = engine.store()
        assert (len(store.index), store.vectors.count(), len(store.graph.document_ids())) == (
            0,
            0,
            0,
        )
    finally:
        engine.close()


def test_an_unset_flag_changes_nothing(tmp_path):
    engine = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        _ingest(engine, DeterministicEmbedder(), threading.Event())
        assert len(engine.store().index) == 40
    finally:
        engine.close()
