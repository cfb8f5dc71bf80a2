"""A token bucket per client key: ``rate`` requests per second, bursts up to ``burst``."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_BUCKETS = 10_000  # least recently used buckets go first beyond this


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
