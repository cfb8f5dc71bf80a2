"""Rate-limit buckets in Redis: replicas share one budget, spending is atomic,
refill matches the in-process buckets, and idle buckets expire."""

from __future__ import annotations

import random
import threading

import pytest

from recall_engine.core.errors import StoreError
from recall_engine.server.ratelimit import TokenBuckets
from recall_engine.state.redis_buckets import RedisTokenBuckets
from recall_engine.state.redis_store import RedisStore

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def store(redis_prefix: str):
    store = RedisStore(f"{REDIS}?prefix={redis_prefix}")
    yield store
    store.close()


def test_two_replicas_share_one_budget(store: RedisStore) -> None:
    a = RedisTokenBuckets(store, rate=0.001, burst=5)
    b = RedisTokenBuckets(RedisStore(store.url), rate=0.001, burst=5)  # another replica
    assert [a.take("key:k1") for _ in range(3)] == [0.0] * 3
    assert [b.take("key:k1") for _ in range(2)] == [0.0] * 2
    assert a.waiting("key:k1") > 0 and b.waiting("key:k1") > 0
    assert a.take("key:k1") > 0 and b.take("key:k1") > 0
    assert b.take("key:k2") == 0.0  # another client has its own bucket
    other = RedisTokenBuckets(store, rate=0.001, burst=5, name="failures")
    assert other.take("key:k1") == 0.0  # and another limit its own


def test_refill_matches_the_in_process_buckets(store: RedisStore) -> None:
    now = [1_000.0]
    shared = RedisTokenBuckets(store, rate=2.0, burst=3, clock=lambda: now[0])
    local = TokenBuckets(2.0, 3, clock=lambda: now[0])
    rng = random.Random(7)
    for _ in range(200):
        now[0] += rng.choice([0.0, 0.0, 0.1, 0.3, 0.5, 2.0])
        key = rng.choice(["a", "b"])
        if rng.random() < 0.2:
            assert shared.waiting(key) == pytest.approx(local.waiting(key), abs=1e-6)
        else:
            assert shared.take(key) == pytest.approx(local.take(key), abs=1e-6)


def test_racing_replicas_never_spend_more_than_the_burst(store: RedisStore) -> None:
    replicas = [RedisTokenBuckets(RedisStore(store.url), rate=0.001, burst=40) for _ in range(6)]
    allowed: list[int] = []
    barrier = threading.Barrier(len(replicas))

    def spend(buckets: RedisTokenBuckets) -> None:
        barrier.wait(timeout=30)
        allowed.append(sum(buckets.take("key:hot") == 0.0 for _ in range(15)))

    threads = [threading.Thread(target=spend, args=(r,)) for r in replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(allowed) == 40  # 90 tries, 40 tokens


def test_a_bucket_expires_once_it_would_be_full_again(store: RedisStore) -> None:
    buckets = RedisTokenBuckets(store, rate=1.0, burst=20)
    buckets.take("key:k")
    key = store.key("bucket", "requests", "key:k")
    assert key.startswith(store.prefix) and store.prefix.startswith("recall-engine:re_test_")
    # 20 tokens at 1/s, plus a second: long enough that a busy machine cannot let it lapse
    assert 0 < store.client.pttl(key) <= 21_000
    buckets.waiting("key:unseen")
    assert not store.client.exists(store.key("bucket", "requests", "key:unseen"))  # looks only


def test_no_limit_writes_nothing(store: RedisStore) -> None:
    buckets = RedisTokenBuckets(store, rate=0, burst=5)
    assert not buckets.enabled
    assert buckets.take("key:k") == 0.0 and buckets.waiting("key:k") == 0.0
    assert not list(store.client.scan_iter(match=f"{store.prefix}*"))


def test_redis_down_is_a_store_error_without_the_password() -> None:
    buckets = RedisTokenBuckets(RedisStore("redis://app:hunter2secret@127.0.0.1:1/0"), 5, 5)
    with pytest.raises(StoreError) as info:
        buckets.take("key:k")
    assert "hunter2secret" not in str(info.value)
    assert "redis://app:***@127.0.0.1:1/0" in str(info.value)
