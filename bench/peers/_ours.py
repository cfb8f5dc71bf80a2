"""Our side of ``bench.peers``: the same operations as Cognee's driver, in process."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench._data import Sample
from recall_engine import RecallEngine, SearchType
from recall_engine.embedding import QUERY_CACHE, Embedder, embed_query
from recall_engine.embedding.parts import PART_CACHE

ROUTED = "ROUTED"
"""The mode name of a recall with no ``query_type`` (the engine's router picks)."""


class OursPeer:
    """The engine on a fresh store, answering ``remember`` and ``recall`` like the driver.

    Args:
        data_dir: an empty folder for the store.
        embedder: the (already loaded) embedder the engine uses.
    """

    def __init__(self, data_dir: Path, embedder: Embedder) -> None:
        self.engine = RecallEngine(data_dir, embedder=embedder)
        self.embedder = embedder

    def close(self) -> None:
        self.engine.close()

    async def remember(self, sample: Sample) -> dict[str, Any]:
        """Remember one conversation as its own dataset; the seconds it took."""
        started = time.perf_counter()
        await self.engine.remember(sample.conversation, dataset_name=sample.sample_id)
        return {"seconds": time.perf_counter() - started}

    async def recall(
        self, mode: str, questions: list[tuple[str, str]], top_k: int, warm_up: bool
    ) -> dict[str, Any]:
        """The seconds of each (dataset, question) recall in ``mode``, ``only_context``.

        The query caches (a question's vector, its parts') are cleared before each timed
        recall, so every one pays its own query embedding, as a peer that embeds per
        request does, whichever mode asked the question before.
        """
        query_type = None if mode == ROUTED else SearchType(mode)

        async def ask(dataset: str, text: str) -> int:
            results = await self.engine.recall(
                text, query_type, datasets=[dataset], top_k=top_k, only_context=True
            )
            return len(results)

        try:
            if warm_up:
                await ask(*questions[0])
            seconds, empty = [], 0
            for dataset, text in questions:
                QUERY_CACHE.clear()
                PART_CACHE.clear()
                started = time.perf_counter()
                found = await ask(dataset, text)
                seconds.append(time.perf_counter() - started)
                empty += not found
        except Exception as error:  # reported in the table, like a peer's failing mode
            return {"error": f"{type(error).__name__}: {error}"[:300]}
        return {"seconds": seconds, "empty": empty}

    def embed(self, questions: list[tuple[str, str]]) -> dict[str, Any]:
        """The seconds of each question's embedding alone: every recall's floor."""
        seconds = []
        for _, text in questions:
            QUERY_CACHE.clear()
            started = time.perf_counter()
            embed_query(self.embedder, text)
            seconds.append(time.perf_counter() - started)
        return {"seconds": seconds, "empty": 0}
