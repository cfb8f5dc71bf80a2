"""Event-loop stalls while remember() ingests, with recalls running alongside.

A ticker task sleeps 1 ms at a time and records how late each wake-up is; the
longest lateness is the longest time the event loop was blocked. One
remember() of a few hundred chunks runs while a recall loop asks CHUNKS
questions; the report gives the max and p99 stall, recall p50/p95 during the
ingest, and the same stall and recall figures with no ingest running as the
baseline (on a shared machine the baseline shows what the OS alone costs).
It also times the router on a catastrophically backtracking user rule (bounded
by ``router.matcher.RULE_TIMEOUT_S``) against the shipped table.

    .venv/bin/python -m bench.loop_stall [--chunks 400] [--embedder hash|minilm]
        [--graph-extractor rules|none] [--json]

Target: max stall < 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench._data import WORDS, percentile
from recall_engine import Document, RecallEngine, SearchType

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Niels Bohr"]
PLACES = ["London", "Paris", "Ulm", "Lyon", "Boston"]


def corpus(n_chunks: int, seed: int = 7) -> list[Document]:
    """Documents of about 10 chunks each, with names and places for the graph extractor."""
    rng = random.Random(seed)
    docs = []
    for d in range(max(1, n_chunks // 10)):
        sentences = []
        for _ in range(10 * 9):  # ~9 sentences of ~20 tokens per 200-token chunk
            name, place = rng.choice(NAMES), rng.choice(PLACES)
            filler = " ".join(rng.choice(WORDS) for _ in range(12))
            sentences.append(f"{name} visited {place} in {rng.randint(1900, 2020)} about {filler}.")
        docs.append(Document(text=" ".join(sentences), title=f"doc {d}"))
    return docs


class Ticker:
    """Sleeps ``period`` at a time and records each wake-up's lateness (the stall)."""

    def __init__(self, period: float = 0.001) -> None:
        self.period = period
        self.stalls: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.period)
            self.stalls.append(time.perf_counter() - before - self.period)

    def __enter__(self) -> Ticker:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def recall_loop(engine: RecallEngine, stop: asyncio.Event, out: list[float]) -> None:
    rng = random.Random(3)
    while not stop.is_set():
        query = f"{rng.choice(NAMES)} {rng.choice(PLACES)} {rng.choice(WORDS)}"
        started = time.perf_counter()
        await engine.recall(query, SearchType.CHUNKS, only_context=True, top_k=10)
        out.append(time.perf_counter() - started)
        await asyncio.sleep(0.002)


def router_figures() -> dict[str, float]:
    """Milliseconds to route a 27- and a 60-character query with a catastrophic
    user rule (bounded) and with the shipped table alone."""
    from router import DEFAULT_RULES, Router, Rule, matcher, scorer

    evil = Rule(id="user.evil", pattern="(a|aa)+$", target=SearchType.SUMMARIES, weight=3)
    original = scorer.check_rule_speed
    scorer.check_rule_speed = lambda rule: None  # measure the query-time bound itself
    try:
        bounded = Router([*DEFAULT_RULES, evil])
    finally:
        scorer.check_rule_speed = original
    shipped = Router()
    out: dict[str, float] = {"rule_timeout_ms": matcher.RULE_TIMEOUT_S * 1000}
    for n in (27, 60):
        query = "a" * (n - 1) + "!"
        for label, router in (("evil_rule", bounded), ("shipped", shipped)):
            started = time.perf_counter()
            router.route(query)
            out[f"{label}_{n}chars_ms"] = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    try:
        Router([*DEFAULT_RULES, evil])
    except ValueError:
        out["load_refusal_ms"] = (time.perf_counter() - started) * 1000
    return out


def _embedder(name: str):  # type: ignore[no-untyped-def]
    if name == "hash":
        from recall_engine.testing import DeterministicEmbedder

        return DeterministicEmbedder()
    return None  # the configured model


async def run(args: argparse.Namespace) -> dict[str, object]:
    docs = corpus(args.chunks)
    with tempfile.TemporaryDirectory() as tmp:
        engine = RecallEngine(
            Path(tmp) / "data",
            embedder=_embedder(args.embedder),
            graph_extractor=args.graph_extractor,
        )
        try:
            await engine.remember(corpus(50, seed=1), dataset_name="warm")
            idle: list[float] = []
            stop = asyncio.Event()
            with Ticker() as idle_ticker:
                task = asyncio.create_task(recall_loop(engine, stop, idle))
                await asyncio.sleep(args.idle_s)
                stop.set()
                await task
            busy: list[float] = []
            stop = asyncio.Event()
            with Ticker() as ticker:
                task = asyncio.create_task(recall_loop(engine, stop, busy))
                started = time.perf_counter()
                result = await engine.remember(docs, dataset_name="bench")
                ingest_s = time.perf_counter() - started
                stop.set()
                await task
        finally:
            engine.close()
    stalls = sorted(ticker.stalls)
    idle_stalls = sorted(idle_ticker.stalls)
    return {
        "chunks": result.chunk_count,
        "embedder": args.embedder,
        "graph_extractor": args.graph_extractor,
        "ingest_s": round(ingest_s, 2),
        "max_stall_ms": round(stalls[-1] * 1000, 1),
        "p99_stall_ms": round(percentile(stalls, 0.99) * 1000, 1),
        "recalls_during_ingest": len(busy),
        "recall_p50_ms": round(statistics.median(busy) * 1000, 1) if busy else None,
        "recall_p95_ms": round(percentile(busy, 0.95) * 1000, 1) if busy else None,
        "idle_max_stall_ms": round(idle_stalls[-1] * 1000, 1),
        "idle_p99_stall_ms": round(percentile(idle_stalls, 0.99) * 1000, 1),
        "idle_recall_p50_ms": round(statistics.median(idle) * 1000, 1),
        "idle_recall_p95_ms": round(percentile(idle, 0.95) * 1000, 1),
        "router": {k: round(v, 2) for k, v in router_figures().items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--embedder", choices=["hash", "minilm"], default="hash")
    parser.add_argument("--graph-extractor", choices=["rules", "none"], default="rules")
    parser.add_argument("--idle-s", type=float, default=2.0, help="baseline recall seconds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        print(f"{key:24s} {value}")


if __name__ == "__main__":
    main()
