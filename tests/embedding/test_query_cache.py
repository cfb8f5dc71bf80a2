"""The per-process query cache and the fallback for embedders without embed_query."""

from __future__ import annotations

import numpy as np

from recall_engine.embedding import QueryCache, embed_query
from recall_engine.testing import DeterministicEmbedder


def test_cache_is_bounded_lru():
    cache = QueryCache(maxsize=2)
    computed: list[str] = []

    def vector(text: str):
        def compute() -> np.ndarray:
            computed.append(text)
            return np.ones(4, dtype=np.float32)

        return compute

    cache.get_or_compute("m", "a", vector("a"))
    cache.get_or_compute("m", "b", vector("b"))
    cache.get_or_compute("m", "a", vector("a"))  # a is now the most recent
    cache.get_or_compute("m", "c", vector("c"))  # evicts b
    cache.get_or_compute("m", "a", vector("a"))
    cache.get_or_compute("m", "b", vector("b"))
    assert computed == ["a", "b", "c", "b"] and len(cache) == 2


def test_get_peeks_without_computing_and_counts_as_a_use():
    cache = QueryCache(maxsize=2)
    assert cache.get("m", "a") is None and len(cache) == 0
    cache.get_or_compute("m", "a", lambda: np.ones(4, dtype=np.float32))
    cache.get_or_compute("m", "b", lambda: np.zeros(4, dtype=np.float32))
    hit = cache.get("m", "a")  # a is now the most recent
    assert hit is not None and hit.tolist() == [1.0] * 4 and not hit.flags.writeable
    cache.get_or_compute("m", "c", lambda: np.zeros(4, dtype=np.float32))  # evicts b
    assert cache.get("m", "b") is None and cache.get("m", "a") is not None
    assert cache.get("other-model", "a") is None


def test_cache_keys_on_model_id():
    cache = QueryCache()
    one = cache.get_or_compute("m1", "q", lambda: np.zeros(2))
    two = cache.get_or_compute("m2", "q", lambda: np.ones(2))
    assert one[0] == 0.0 and two[0] == 1.0


def test_embed_query_falls_back_to_embed():
    embedder = DeterministicEmbedder(dimension=32)
    vector = embed_query(embedder, "where is the cat")
    assert vector.shape == (32,)
    np.testing.assert_allclose(vector, embedder.embed(["where is the cat"])[0])
    assert embed_query(embedder, "where is the cat") is vector
    assert embed_query(DeterministicEmbedder(dimension=16), "where is the cat").shape == (16,)
