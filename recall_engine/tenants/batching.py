"""Query embeddings of concurrent requests, computed together.

Under load many recalls wait for an embedding at once; one batched model call
for all of them costs far less CPU than one call each. A request that finds no
batch running starts one at once (no added latency when idle); requests that
arrive meanwhile join the next batch. Every query looks in the engine's
per-process query cache first (a repeated query costs no model call and no trip
to a worker thread); a lone query goes through it as ``embed_query`` does, and
batched vectors are stored in it.

Queries that come with a part (``embedding.parts``: the thinking lane's question
without its speakers' names) are embedded with their parts in one forward pass of
their own, in the batch's trip to the worker thread, where the model can pool a part:
that pass gives both vectors, where a batched vector and then the part would cost two.
"""

from __future__ import annotations

import asyncio

import numpy as np

from recall_engine.core.text_parts import Spans
from recall_engine.embedding import Embedder, embed_queries
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.embedding.parts import cached_part, embed_query_parts, parts_method

MAX_BATCH = 32

_Pending = tuple[str, Spans | None, asyncio.Future[np.ndarray]]


class QueryBatcher:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._pools_parts = parts_method(embedder) is not None
        self._pending: list[_Pending] = []
        self._running = False

    async def embed(self, text: str, part: Spans | None = None) -> np.ndarray:
        """``text``'s query vector (cached per process), computed with concurrent
        requests' in one model call.

        Args:
            text: the query.
            part: character ranges of a part of ``text`` the search will also ask
                for; with a model that pools parts, its vector comes from ``text``'s
                own pass and is cached too. Ignored otherwise.

        Raises:
            EmbeddingError: the model failed to load or run.
        """
        if part is not None and (
            not self._pools_parts or cached_part(self.embedder, text, part) is not None
        ):
            part = None
        cached = QUERY_CACHE.get(self.embedder.model_id, text)
        if cached is not None and part is None:
            return cached
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._pending.append((text, part, future))
        if not self._running:
            self._running = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
                try:
                    vectors = await asyncio.to_thread(self._vectors, batch)
                except Exception as exc:
                    for _, _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for text, _, future in batch:
                    if not future.done():
                        future.set_result(vectors[text])
        finally:
            self._running = False

    def _vectors(self, batch: list[_Pending]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        parts = [(text, part) for text, part, _ in batch if part is not None]
        if parts:  # one pass gives these queries' vectors and their parts'
            embed_query_parts(self.embedder, parts)
            for text, _ in parts:
                cached = QUERY_CACHE.get(self.embedder.model_id, text)
                if cached is not None:
                    out[text] = cached
        plain = list(dict.fromkeys(text for text, _, _ in batch if text not in out))
        return out | embed_queries(self.embedder, plain) if plain else out
