"""Query embeddings of concurrent requests, computed together.

Under load many recalls wait for an embedding at once; one batched model call
for all of them costs far less CPU than one call each. A request that finds no
batch running starts one at once (no added latency when idle); requests that
arrive meanwhile join the next batch. Every query looks in the engine's
per-process query cache first (a repeated query costs no model call and no trip
to a worker thread); a lone query goes through it as ``embed_query`` does, and
batched vectors are stored in it.
"""

from __future__ import annotations

import asyncio

import numpy as np

from recall_engine.embedding import Embedder, embed_queries
from recall_engine.embedding.common import QUERY_CACHE

MAX_BATCH = 32


class QueryBatcher:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._pending: list[tuple[str, asyncio.Future[np.ndarray]]] = []
        self._running = False

    async def embed(self, text: str) -> np.ndarray:
        cached = QUERY_CACHE.get(self.embedder.model_id, text)
        if cached is not None:
            return cached
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._pending.append((text, future))
        if not self._running:
            self._running = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                texts = list(dict.fromkeys(t for t, _ in batch))
                try:
                    vectors = await asyncio.to_thread(self._vectors, texts)
                except Exception as exc:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for text, future in batch:
                    if not future.done():
                        future.set_result(vectors[text])
        finally:
            self._running = False

    def _vectors(self, texts: list[str]) -> dict[str, np.ndarray]:
        return embed_queries(self.embedder, texts)
