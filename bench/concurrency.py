"""recall() latency while remember() ingests into the same tenant, and under 8 callers.

Three phases in one process, on one tenant store:

1. idle: recalls one after another, nothing else running (the baseline);
2. during ingest: the same recalls while one remember() of ``--ingest-chunks``
   chunks (5,000 by default) runs into another dataset of the same tenant;
3. concurrent: ``--callers`` tasks (8) recalling at once, no ingest.

Each phase reports recall p50/p95/max in ms and errors; the ingest reports its
wall time. Queries are random word pairs (so the per-process query-embedding
cache does not flatter the figures) over CHUNKS, CHUNKS_LEXICAL and
RAG_COMPLETION (extractive without an LLM).

    .venv/bin/python -m bench.concurrency [--ingest-chunks 5000] [--embedder minilm|hash]
        [--graph-extractor rules|none] [--recalls 100] [--callers 8] [--json]

Target: p95 during ingest <= 3x idle p95; zero errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TYPES = ("CHUNKS", "CHUNKS_LEXICAL", "RAG_COMPLETION")


def _stats(latencies: list[float]) -> dict[str, float]:
    from bench._data import percentile

    ms = [x * 1000 for x in latencies]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 0.5), 1),
        "p95_ms": round(percentile(ms, 0.95), 1),
        "max_ms": round(max(ms), 1) if ms else float("nan"),
    }


async def _recall(engine: Any, rng: random.Random, words: list[str], out: list[float],
                  errors: list[str]) -> None:  # fmt: skip
    from recall_engine import SearchType

    query = " ".join(rng.sample(words, 2)) + f" {rng.randint(0, 10**6)}"
    started = time.perf_counter()
    try:
        await engine.recall(query, SearchType(rng.choice(TYPES)), top_k=10)
    except Exception as exc:  # a bench counts failures instead of stopping at the first
        errors.append(f"{type(exc).__name__}: {exc}")
    out.append(time.perf_counter() - started)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench._data import WORDS
    from bench.loop_stall import corpus
    from recall_engine import RecallEngine

    embedder = None
    if args.embedder == "hash":
        from recall_engine.testing import DeterministicEmbedder

        embedder = DeterministicEmbedder()
    rng = random.Random(args.seed)
    words = list(WORDS)
    report: dict[str, Any] = {"args": vars(args)}
    with tempfile.TemporaryDirectory() as tmp:
        engine = RecallEngine(Path(tmp), embedder=embedder, graph_extractor=args.graph_extractor)
        try:
            started = time.perf_counter()
            base = await engine.remember(corpus(args.base_chunks, seed=1), dataset_name="base")
            report["base"] = {
                "chunks": base.chunk_count,
                "s": round(time.perf_counter() - started, 1),
            }
            for _ in range(10):  # warm up: model, indexes, first connections
                await _recall(engine, rng, words, [], [])

            idle: list[float] = []
            idle_errors: list[str] = []
            for _ in range(args.recalls):
                await _recall(engine, rng, words, idle, idle_errors)
            report["idle"] = {**_stats(idle), "errors": len(idle_errors)}
            print(f"idle: {report['idle']}", file=sys.stderr, flush=True)

            during: list[float] = []
            during_errors: list[str] = []
            started = time.perf_counter()
            ingest = asyncio.create_task(
                engine.remember(corpus(args.ingest_chunks, seed=2), dataset_name="big")
            )
            while not ingest.done():
                await _recall(engine, rng, words, during, during_errors)
                await asyncio.sleep(args.pause_s)
            big = await ingest
            report["ingest"] = {
                "chunks": big.chunk_count,
                "s": round(time.perf_counter() - started, 1),
            }
            report["during_ingest"] = {**_stats(during), "errors": len(during_errors)}
            print(f"during ingest: {report['during_ingest']}", file=sys.stderr, flush=True)

            together: list[float] = []
            together_errors: list[str] = []

            async def caller(seed: int) -> None:
                own = random.Random(seed)
                for _ in range(args.recalls // 2):
                    await _recall(engine, own, words, together, together_errors)

            started = time.perf_counter()
            await asyncio.gather(*(caller(args.seed + i) for i in range(args.callers)))
            wall = time.perf_counter() - started
            report["concurrent"] = {
                **_stats(together),
                "callers": args.callers,
                "errors": len(together_errors),
                "recalls_per_s": round(len(together) / wall, 1),
            }
            errors = idle_errors + during_errors + together_errors
            report["errors"] = errors[:5]
            ratio = report["during_ingest"]["p95_ms"] / max(report["idle"]["p95_ms"], 1e-9)
            report["p95_ratio"] = round(ratio, 2)
            report["target_met"] = ratio <= 3.0 and not errors
        finally:
            engine.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ingest-chunks", type=int, default=5000)
    parser.add_argument("--base-chunks", type=int, default=500)
    parser.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    parser.add_argument("--graph-extractor", choices=["rules", "none"], default="rules")
    parser.add_argument("--recalls", type=int, default=100, help="recalls in the idle phase")
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--pause-s", type=float, default=0.02, help="between recalls in ingest")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    ingest = report["ingest"]
    print(f"base: {report['base']['chunks']} chunks; ingest: {ingest['chunks']} chunks in "
          f"{ingest['s']} s ({args.embedder}, graph {args.graph_extractor})")  # fmt: skip
    for phase in ("idle", "during_ingest", "concurrent"):
        s = report[phase]
        extra = f", {s['recalls_per_s']} recalls/s" if phase == "concurrent" else ""
        print(f"{phase:>14}: n={s['n']:>4} p50={s['p50_ms']:>7} ms p95={s['p95_ms']:>7} ms "
              f"max={s['max_ms']:>7} ms errors={s['errors']}{extra}")  # fmt: skip
    print(f"p95 during ingest / idle p95 = {report['p95_ratio']} (target <= 3, zero errors): "
          f"{'met' if report['target_met'] else 'NOT met'}")  # fmt: skip
    for error in report["errors"]:
        print("  error:", error)


if __name__ == "__main__":
    main()
