"""The server's rate-limit token buckets in Redis, so that every replica spends
from one budget per client: the same interface as ``server.ratelimit.TokenBuckets``.

A bucket is a hash (tokens, time of the last refill) under
``<prefix>bucket:<name>:<client key>``. One Lua script refills and spends it,
so two replicas spending at once never both take the last token. Time is the
Redis server's clock (``TIME``): replicas on machines whose clocks disagree
still refill alike. Each write sets the key to expire once the bucket would be
full again, so an idle client's bucket vanishes (and an absent bucket is a
full one).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from recall_engine.state.redis_store import RedisStore

if TYPE_CHECKING:
    from redis.commands.core import Script

# KEYS[1] the bucket; ARGV rate, burst, cost (0: only look), ttl in ms, [now].
_SCRIPT = """
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now
if ARGV[5] then
  now = tonumber(ARGV[5])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]), tonumber(held[2])
if tokens == nil or at == nil then
  tokens, at = burst, now
end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens < 1 then
  wait = (1 - tokens) / rate
elseif cost > 0 then
  tokens = tokens - cost
end
if cost > 0 then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return tostring(wait)
"""


class RedisTokenBuckets:
    """``rate`` requests per second per client key, bursts up to ``burst``, shared by
    every replica that names the same Redis server and prefix.

    Args:
        name: which limit these buckets are (``requests``, ``failures``): two
            limits of one client never share a bucket.
        clock: seconds since the epoch (tests); None = the Redis server's clock.

    Calls raise ``StoreError`` when Redis cannot be reached (the server answers 503).
    """

    def __init__(
        self,
        redis: RedisStore,
        rate: float,
        burst: int,
        *,
        name: str = "requests",
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self._redis = redis
        self._name = name
        self._clock = clock
        self._script: Script = redis.client.register_script(_SCRIPT)
        # Idle this long, a bucket is full again: it may as well not exist.
        self._ttl_ms = math.ceil((self.burst / rate + 1.0) * 1000) if rate > 0 else 1000

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def _run(self, key: str, cost: int) -> float:
        args: list[str | int] = [repr(float(self.rate)), self.burst, cost, self._ttl_ms]
        if self._clock is not None:
            args.append(repr(float(self._clock())))
        with self._redis.calls("rate limit"):
            wait = self._script(keys=[self._redis.key("bucket", self._name, key)], args=args)
        return float(wait)

    def waiting(self, key: str) -> float:
        """Seconds until ``key``'s bucket has a token (0.0: it has one); spends nothing."""
        return self._run(key, 0) if self.enabled else 0.0

    def take(self, key: str) -> float:
        """Spend a token of ``key``'s bucket: 0.0 when allowed, else the seconds
        until a token is available (the Retry-After)."""
        return self._run(key, 1) if self.enabled else 0.0
