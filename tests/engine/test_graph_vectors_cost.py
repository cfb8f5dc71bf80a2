"""Ingest embeds each graph text once, and co-mention edges embed nothing."""

from __future__ import annotations

import numpy as np

from recall_engine import Document, RecallEngine
from recall_engine.testing import DeterministicEmbedder


class CountingEmbedder(DeterministicEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
        self.seen.extend(texts)
        return super().embed(texts, batch_size=batch_size)


async def test_co_mentions_reuse_vectors_and_typed_relations_embed_once(tmp_path) -> None:
    embedder = CountingEmbedder()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    text = (
        "Grace Hopper worked for Remington Rand in Philadelphia. "
        "Ada Lovelace met Charles Babbage in London with Mary Somerville."
    )
    await engine.remember(Document(text=text, title="people"), dataset_name="people")
    store = engine.store()
    rows = store.graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN r.predicate, a.name, b.name"
    )
    predicates = [r[0] for r in rows]
    assert "related_to" in predicates and any(p != "related_to" for p in predicates)
    assert not any(" related to " in t for t in embedder.seen)  # co-mentions embed nothing
    assert len(embedder.seen) == len(set(embedder.seen))  # nothing embedded twice
    probe = np.ones(embedder.dimension, dtype=np.float32)
    hits = store.relation_index.search(probe / np.linalg.norm(probe), 50)
    assert len(hits) == len(rows)  # every relation is searchable by vector
    engine.close()
