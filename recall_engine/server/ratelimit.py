"""A token bucket per client key: ``rate`` requests per second, bursts up to ``burst``.

``TokenBuckets`` keeps them in this process; with a Redis server
(``RECALL_ENGINE_REDIS_URL``) ``make_buckets`` returns buckets that every replica
shares (``state.redis_buckets``), so N replicas allow a client ``rate``, not N x ``rate``.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from recall_engine.state.redis_buckets import RedisTokenBuckets
from recall_engine.state.redis_store import RedisStore

MAX_BUCKETS = 10_000  # least recently used buckets go first beyond this


class Buckets(Protocol):
    """What the authenticator needs of a rate limiter."""

    @property
    def enabled(self) -> bool: ...

    def waiting(self, key: str) -> float: ...

    def take(self, key: str) -> float: ...


def make_buckets(
    rate: float, burst: int, *, redis: RedisStore | None = None, name: str = "requests"
) -> Buckets:
    """Buckets in ``redis`` (shared by replicas) when given, else in this process.
    ``name`` keeps two limits of one client (requests, failed logins) apart."""
    if redis is None:
        return TokenBuckets(rate, burst)
    return RedisTokenBuckets(redis, rate, burst, name=name)


class TokenBuckets:
    def __init__(
        self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def waiting(self, key: str) -> float:
        """Seconds until ``key``'s bucket has a token (0.0: it has one); spends nothing."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def take(self, key: str) -> float:
        """Spend a token of ``key``'s bucket: 0.0 when allowed, else the seconds
        until a token is available (the Retry-After)."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
            return wait


def retry_after(wait: float) -> str:
    return str(max(1, math.ceil(wait)))
