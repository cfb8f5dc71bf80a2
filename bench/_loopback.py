"""What the loopback latency benches (``bench.remote``, ``bench.mcp``, ``bench.server``)
share: their common options, the timed recall loop, a free port, and the p50/p95 figures."""

from __future__ import annotations

import argparse
import socket
import statistics
import time
from typing import Any

from bench._data import percentile


def parser(doc: str) -> argparse.ArgumentParser:
    """The options every loopback bench takes; a bench adds its own to the result."""
    out = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    out.add_argument("--samples", type=int, default=1, help="LoCoMo dev conversations")
    out.add_argument("--questions", type=int, default=100, help="at most")
    out.add_argument("--top-k", type=int, default=10)
    out.add_argument("--json", action="store_true", help="print the figures as JSON")
    return out


async def timed_recalls(
    engine: Any, modes: list[str], questions: list[str], top_k: int
) -> dict[str, list[float]]:
    """Seconds per question and mode (only_context), after one warm-up recall per mode."""
    times: dict[str, list[float]] = {}
    for mode in modes:
        await engine.recall(questions[0], mode, only_context=True, top_k=top_k)
        times[mode] = []
        for question in questions:
            started = time.perf_counter()
            await engine.recall(question, mode, only_context=True, top_k=top_k)
            times[mode].append(time.perf_counter() - started)
    return times


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def latency_figures(seconds: list[float]) -> dict[str, float]:
    """Median and 95th percentile in milliseconds, and how many."""
    ms = [t * 1000 for t in seconds]
    return {"p50_ms": statistics.median(ms), "p95_ms": percentile(ms, 0.95), "n": len(ms)}
