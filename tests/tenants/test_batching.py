"""The tenant API's query batcher: batches concurrent queries and reads the
per-process query cache before asking the model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from recall_engine.embedding import embed_query
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.tenants.batching import QueryBatcher
from recall_engine.testing import DeterministicEmbedder


class Counting(DeterministicEmbedder):
    """Counts the model calls and the texts in them."""

    def __init__(self) -> None:
        super().__init__(dimension=16, model_id="batching-test")
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts, batch_size=batch_size)


async def test_a_cached_query_asks_no_model_and_batches_ask_once():
    QUERY_CACHE.clear()
    embedder = Counting()
    batcher = QueryBatcher(embedder)
    first = await batcher.embed("where did Ann move?")
    again = await batcher.embed("where did Ann move?")
    assert embedder.calls == [["where did Ann move?"]]
    assert again is first  # the cache's own read-only array, as embed_query returns
    assert not again.flags.writeable
    texts = ["where did Ann move?", "a new one", "another new one", "a new one"]
    got = await asyncio.gather(*(batcher.embed(t) for t in texts))
    # The cached query waits for nothing; the rest share one model call.
    assert embedder.calls[1:] == [["a new one", "another new one"]]
    for text, vector in zip(texts, got, strict=True):
        np.testing.assert_array_equal(vector, embed_query(embedder, text))
    assert len(embedder.calls) == 2  # embed_query above found every text cached
    QUERY_CACHE.clear()
