"""Query vectors in Redis, so that a query one replica embedded is not embedded
again by another: a second level under each process's own ``QUERY_CACHE``.

A vector is stored as its float32 bytes under ``<prefix>qv:<model id>:<sha256 of
the text>``: the key names the model (two models never share a vector) and
carries a digest, not the text. Every entry expires after ``ttl_s``, and an
index (a sorted set in order of writing) keeps at most ``max_entries``: one Lua
script writes the entry and drops the oldest beyond the bound, so the cache
stays bounded whatever Redis's own eviction policy is.

A cache must never fail a recall, nor slow every one down: when Redis is down
or does not answer, the vector is computed as if it were a miss, a warning
(without the URL's password) is logged once per outage, and queries leave Redis
alone for ``SKIP_S`` seconds before they ask it again (a server that stopped
answering costs one call's timeout per window, not one or two per query).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from recall_engine.core.errors import StoreError
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.embedding.embedder import WrappedEmbedder
from recall_engine.state.redis_store import RedisStore

if TYPE_CHECKING:
    from redis.commands.core import Script

    from recall_engine.embedding import Embedder

logger = logging.getLogger(__name__)

DEFAULT_TTL_S = 7 * 86400.0
DEFAULT_MAX_ENTRIES = 100_000
"""About 150 MB of 384-float vectors at most."""
SKIP_S = 30.0
"""How long queries leave Redis alone after it failed."""

# KEYS[1] the entry, KEYS[2] the index, KEYS[3] its counter; ARGV value, ttl in ms,
# max entries. The index orders entries by a counter (not the clock, which
# writes within one millisecond share): the oldest go first, expired ones among them.
_PUT = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), KEYS[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    redis.call('DEL', key)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return over
"""


class RedisQueryCache:
    """Query vectors by (model id, text) in Redis, bounded and expiring."""

    def __init__(
        self,
        redis: RedisStore,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        max_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> None:
        self._redis = redis
        self._ttl_ms = max(1, round(ttl_s * 1000))
        self.max_entries = max(1, max_entries)
        self._index = (redis.key("qv-index"), redis.key("qv-count"))
        self._put: Script = redis.client.register_script(_PUT)

    def key(self, model_id: str, text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return self._redis.key("qv", model_id, digest)

    def get(self, model_id: str, text: str, *, dimension: int) -> np.ndarray | None:
        """The stored vector (1-D float32, read-only), or None: not stored, or not
        ``dimension`` finite floats (then it is ignored, as a miss).

        Raises:
            StoreError: Redis cannot be reached.
        """
        with self._redis.calls("query cache"):
            raw = self._redis.client.get(self.key(model_id, text))
        return _vector(raw, dimension)

    def get_many(
        self, model_id: str, texts: Sequence[str], *, dimension: int
    ) -> list[np.ndarray | None]:
        """``get`` of each text, in one round trip.

        Raises:
            StoreError: Redis cannot be reached.
        """
        if not texts:
            return []
        with self._redis.calls("query cache"):
            raws = self._redis.client.mget([self.key(model_id, t) for t in texts])
        return [_vector(raw, dimension) for raw in raws]

    def put(self, model_id: str, text: str, vector: np.ndarray) -> None:
        """Store ``vector`` (dropping the oldest entries beyond ``max_entries``).

        Raises:
            StoreError: Redis cannot be reached.
        """
        value = np.ascontiguousarray(vector, dtype="<f4").reshape(-1).tobytes()
        with self._redis.calls("query cache"):
            self._put(
                keys=[self.key(model_id, text), *self._index],
                args=[value, self._ttl_ms, self.max_entries],
            )


def _vector(raw: bytes | str | None, dimension: int) -> np.ndarray | None:
    # the client does not decode replies: a stored value is bytes, never str
    if not isinstance(raw, bytes) or len(raw) != 4 * dimension:
        return None
    vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if not np.isfinite(vector).all():
        return None
    vector.flags.writeable = False
    return vector


class SharedQueryEmbedder(WrappedEmbedder):
    """``embedder`` whose query vectors go through this process's cache, then
    Redis (shared by replicas), before the model; documents embed as before.

    ``clock``: monotonic seconds (tests); it times the window in which queries
    skip Redis after it failed.
    """

    def __init__(
        self,
        embedder: Embedder,
        cache: RedisQueryCache,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(embedder)
        self.cache = cache
        self._clock = clock
        self._down = threading.Event()  # warned about this outage already
        self._skip_until = 0.0

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector, 1-D and read-only.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        return QUERY_CACHE.get_or_compute(self.model_id, text, lambda: self._shared(text))

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The vectors of several queries (``QueryBatcher``'s batches): those in
        Redis from there, the rest in one model call, then stored for the others.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        model = self.model_id
        found: list[np.ndarray | None] = [None] * len(texts)
        if self._asking():
            try:
                found = self.cache.get_many(model, texts, dimension=self.dimension)
            except StoreError as exc:
                self._failed(exc)
        missing = [t for t, v in zip(texts, found, strict=True) if v is None]
        computed = iter(self.inner.embed(missing, batch_size=len(missing)) if missing else ())
        out = []
        for text, hit in zip(texts, found, strict=True):
            vector = hit if hit is not None else np.asarray(next(computed), dtype=np.float32)
            if hit is None:
                self._put(model, text, vector)
            out.append(QUERY_CACHE.put(model, text, vector))
        return out

    def _asking(self) -> bool:
        """Whether to ask Redis now (not within ``SKIP_S`` of its last failure)."""
        return self._clock() >= self._skip_until

    def _put(self, model: str, text: str, vector: np.ndarray) -> None:
        if not self._asking():
            return
        try:
            self.cache.put(model, text, vector)
            self._down.clear()
        except StoreError as exc:
            self._failed(exc)

    def _shared(self, text: str) -> np.ndarray:
        model = self.model_id
        hit = None
        if self._asking():
            try:
                hit = self.cache.get(model, text, dimension=self.dimension)
            except StoreError as exc:
                self._failed(exc)
        if hit is not None:
            self._down.clear()
            return hit
        vector = np.asarray(self.inner.embed([text], batch_size=1)[0], dtype=np.float32)
        self._put(model, text, vector)
        return vector

    def _failed(self, exc: StoreError) -> None:
        self._skip_until = self._clock() + SKIP_S
        if not self._down.is_set():
            self._down.set()
            logger.warning(
                "query vectors are computed without the shared cache for %g s: %s", SKIP_S, exc
            )
