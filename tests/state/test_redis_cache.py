"""Query vectors in Redis: one replica's vector serves another, keys hold a digest
(not the text), entries expire and stay bounded, and Redis down fails no query."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine.core.errors import StoreError
from recall_engine.embedding import embed_query
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.state.redis_cache import SKIP_S, RedisQueryCache, SharedQueryEmbedder
from recall_engine.state.redis_store import RedisStore
from recall_engine.testing import DeterministicEmbedder

REDIS = "redis://127.0.0.1:6379/0"


class Counting(DeterministicEmbedder):
    """Counts the texts its model was asked to embed."""

    def __init__(self) -> None:
        super().__init__(dimension=32)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        self.texts += list(texts)
        return super().embed(texts, batch_size=batch_size)


@pytest.fixture
def store(redis_prefix: str):
    store = RedisStore(f"{REDIS}?prefix={redis_prefix}")
    yield store
    store.close()


def test_a_vector_one_replica_embedded_serves_another(store: RedisStore) -> None:
    a = SharedQueryEmbedder(Counting(), RedisQueryCache(store))
    b = SharedQueryEmbedder(Counting(), RedisQueryCache(RedisStore(store.url)))
    first = embed_query(a, "which build broke the outage?")
    QUERY_CACHE.clear()  # as if B were another process
    second = embed_query(b, "which build broke the outage?")
    assert a.inner.texts == ["which build broke the outage?"] and b.inner.texts == []
    np.testing.assert_array_equal(first, second)
    assert not second.flags.writeable
    embed_query(b, "another question")
    assert b.inner.texts == ["another question"]
    b.embed(["a document"])  # documents are not cached
    assert b.inner.texts[-1] == "a document"


def test_the_key_holds_the_model_and_a_digest_and_expires(store: RedisStore) -> None:
    cache = RedisQueryCache(store, ttl_s=60)
    vector = np.arange(8, dtype=np.float32)
    cache.put("model-a", "private question text", vector)
    (key,) = [k.decode() for k in store.client.scan_iter(match=store.key("qv", "*"))]
    assert key.startswith(store.key("qv", "model-a", "")) and "private" not in key
    assert store.client.get(key) == vector.astype("<f4").tobytes()
    assert 0 < store.client.pttl(key) <= 60_000
    assert cache.get("model-b", "private question text", dimension=8) is None  # per model
    np.testing.assert_array_equal(
        cache.get("model-a", "private question text", dimension=8), vector
    )


def test_the_cache_keeps_at_most_max_entries_newest_first(store: RedisStore) -> None:
    cache = RedisQueryCache(store, max_entries=3)
    for n in range(7):
        cache.put("m", f"q{n}", np.full(4, n, dtype=np.float32))
    kept = [n for n in range(7) if cache.get("m", f"q{n}", dimension=4) is not None]
    assert kept == [4, 5, 6]
    assert len(list(store.client.scan_iter(match=store.key("qv", "*")))) == 3


def test_a_vector_of_another_dimension_is_a_miss(store: RedisStore) -> None:
    embedder = SharedQueryEmbedder(Counting(), RedisQueryCache(store))
    embedder.cache.put(embedder.model_id, "q", np.ones(5, dtype=np.float32))
    QUERY_CACHE.clear()
    vector = embed_query(embedder, "q")
    assert vector.shape == (32,) and embedder.inner.texts == ["q"]


def test_redis_down_computes_the_vector_and_warns_once_without_the_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    down = RedisStore("redis://app:hunter2secret@127.0.0.1:1/0")
    embedder = SharedQueryEmbedder(Counting(), RedisQueryCache(down))
    with caplog.at_level(logging.WARNING):
        vectors = [embed_query(embedder, f"down {n}") for n in range(3)]
    assert [v.shape for v in vectors] == [(32,)] * 3
    warnings = [r for r in caplog.records if "shared cache" in r.getMessage()]
    assert len(warnings) == 1
    assert "hunter2secret" not in caplog.text and "app:***@127.0.0.1:1" in caplog.text


async def test_batched_queries_read_and_fill_the_shared_cache(store: RedisStore) -> None:
    from recall_engine.tenants.batching import QueryBatcher

    a = SharedQueryEmbedder(Counting(), RedisQueryCache(store))
    embed_query(a, "known question")
    QUERY_CACHE.clear()
    b = SharedQueryEmbedder(Counting(), RedisQueryCache(RedisStore(store.url)))
    vectors = b.embed_queries(["known question", "new one", "another new one"])
    assert b.inner.texts == ["new one", "another new one"]  # one model call for the misses
    np.testing.assert_array_equal(vectors[0], embed_query(a, "known question"))
    QUERY_CACHE.clear()
    batcher = QueryBatcher(a)
    got = await asyncio.gather(*(batcher.embed(t) for t in ["new one", "another new one"]))
    assert a.inner.texts == ["known question"]  # B's vectors came from Redis
    np.testing.assert_array_equal(got[0], vectors[1])


class Unanswered:
    """A query cache whose Redis does not answer: every call fails, as after its timeout."""

    def __init__(self) -> None:
        self.calls = 0

    def _fail(self, *args: object, **kwargs: object) -> None:
        self.calls += 1
        raise StoreError("Redis at redis://127.0.0.1:1/0 failed (query cache): Timeout.")

    get = get_many = put = _fail


def test_after_redis_failed_queries_leave_it_alone_instead_of_waiting_on_it_each_time() -> None:
    QUERY_CACHE.clear()
    cache = Unanswered()
    embedder = SharedQueryEmbedder(Counting(), cache)  # type: ignore[arg-type]
    embed_query(embedder, "first question")
    assert cache.calls == 1  # not asked again to store what it could not find
    embed_query(embedder, "second question")
    embedder.embed_queries(["third question", "fourth question"])
    assert cache.calls == 1
    assert embedder.inner.texts == [f"{n} question" for n in ("first", "second", "third", "fourth")]


def test_redis_is_asked_again_once_the_skip_window_passed() -> None:
    QUERY_CACHE.clear()
    now = [100.0]
    cache = Unanswered()
    embedder = SharedQueryEmbedder(Counting(), cache, clock=lambda: now[0])  # type: ignore[arg-type]
    embed_query(embedder, "first question")
    now[0] += SKIP_S - 1
    embed_query(embedder, "second question")
    assert cache.calls == 1
    now[0] += 1
    embed_query(embedder, "third question")
    assert cache.calls == 2
