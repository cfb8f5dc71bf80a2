"""The query is embedded only for retrievers that use its vector."""

from __future__ import annotations

from recall_engine import RecallEngine, SearchType
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.testing import DeterministicEmbedder


class CountingEmbedder(DeterministicEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().embed(texts, batch_size=batch_size)


async def test_lexical_recall_does_not_embed_and_dense_recall_does(tmp_path) -> None:
    embedder = CountingEmbedder()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
    QUERY_CACHE.clear()
    before = embedder.calls
    hits = await engine.recall("Where was Einstein born?", SearchType.CHUNKS_LEXICAL)
    assert hits and embedder.calls == before
    hits = await engine.recall("Where was Einstein born?", SearchType.CHUNKS)
    assert hits and embedder.calls == before + 1
    engine.close()
