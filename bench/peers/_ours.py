"""Our side of ``bench.peers``: remember each conversation, then time recall per mode."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from bench._data import Sample, percentile
from recall_engine import RecallEngine, SearchType
from recall_engine.embedding import QUERY_CACHE, Embedder, embed_query

ROUTED = "ROUTED"
"""The mode name of a recall with no ``query_type`` (the engine's router picks)."""
EMBED = "EMBED"
"""Not a mode: the query embedding alone, every recall's floor on both sides."""


async def run_ours(
    samples: list[Sample],
    questions: list[tuple[str, str]],
    modes: list[str],
    *,
    data_dir: Path,
    embedder: Embedder,
    top_k: int,
) -> dict[str, Any]:
    """Ingest ``samples`` (one dataset each) and time ``questions`` in every mode.

    Args:
        samples: the conversations, remembered with their own ``sample_id`` as dataset.
        questions: (dataset, question) pairs, asked against that dataset only.
        modes: search type names, or ``ROUTED`` for no ``query_type``.
        data_dir: an empty folder for the store.
        embedder: the (already loaded) embedder the engine uses.
        top_k: every recall's ``top_k``.

    Returns:
        ``{"ingest": {...}, "modes": {mode: {"p50_ms", "p95_ms", "n", "empty"}}}``.
        The query cache is cleared before every timed recall, so each one pays its
        own query embedding, as a peer that embeds per request does.
    """
    async with RecallEngine(data_dir, embedder=embedder) as engine:
        messages = sum(len(s.conversation.messages) for s in samples)
        started = time.perf_counter()
        for sample in samples:
            await engine.remember(sample.conversation, dataset_name=sample.sample_id)
        seconds = time.perf_counter() - started
        out: dict[str, Any] = {
            "ingest": {
                "messages": messages,
                "seconds": seconds,
                "messages_per_s": messages / seconds,
            },
            "modes": {},
        }
        for mode in modes:
            out["modes"][mode] = await _time_mode(engine, mode, questions, top_k)
        out["modes"][EMBED] = _time_embedding(embedder, questions)
        return out


def _time_embedding(embedder: Embedder, questions: list[tuple[str, str]]) -> dict[str, Any]:
    times = []
    for _, text in questions:
        QUERY_CACHE.clear()
        started = time.perf_counter()
        embed_query(embedder, text)
        times.append(time.perf_counter() - started)
    return _figures(times, 0)


def _figures(times: list[float], empty: int) -> dict[str, Any]:
    ms = [1000 * t for t in times]
    return {
        "p50_ms": statistics.median(ms),
        "p95_ms": percentile(ms, 0.95),
        "n": len(ms),
        "empty": empty,
    }


async def _time_mode(
    engine: RecallEngine, mode: str, questions: list[tuple[str, str]], top_k: int
) -> dict[str, Any]:
    query_type = None if mode == ROUTED else SearchType(mode)

    async def ask(dataset: str, text: str) -> int:
        results = await engine.recall(
            text, query_type, datasets=[dataset], top_k=top_k, only_context=True
        )
        return len(results)

    try:
        await ask(*questions[0])  # warm-up, untimed (as on the peer's side)
        times, empty = [], 0
        for dataset, text in questions:
            QUERY_CACHE.clear()
            started = time.perf_counter()
            found = await ask(dataset, text)
            times.append(time.perf_counter() - started)
            empty += not found
    except Exception as error:  # reported in the table, like a peer's failing mode
        return {"error": f"{type(error).__name__}: {error}"[:300]}
    return _figures(times, empty)
