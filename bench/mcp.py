"""MCP ``recall`` latency over stdio vs the embedded engine's recall, in one run.

LoCoMo dev conversations are remembered into a temporary data dir; then the same
questions are asked (CHUNKS_LEXICAL, only_context, top_k 10) through the embedded
engine and through ``recall-engine mcp`` started as a subprocess and driven by the
MCP SDK's stdio client. A data dir is held by one process, so the embedded pass
closes its engine before the MCP server opens it, and runs again afterwards;
the embedded figure is the median of both passes.

    .venv/bin/python -m bench.mcp [--samples 1] [--questions 100] [--json]

Reported: p50 and p95 per path, the MCP p50 minus the embedded p50, and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._loopback import latency_figures, parser, timed_recalls

ROOT = Path(__file__).resolve().parents[1]
MODE = "CHUNKS_LEXICAL"


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    return parser(__doc__).parse_args(argv)


async def _embedded(data_dir: Path, questions: list[str], top_k: int) -> list[float]:
    from recall_engine import RecallEngine

    async with RecallEngine(data_dir) as engine:
        return (await timed_recalls(engine, [MODE], questions, top_k))[MODE]


async def _over_stdio(data_dir: Path, questions: list[str], top_k: int) -> list[float]:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "PYTHONPATH": str(ROOT), "RECALL_ENGINE_DATA_DIR": str(data_dir)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "recall_engine.cli", "mcp"], env=env
    )
    times = []
    async with Client(params, read_timeout_seconds=300) as client:

        async def ask(question: str) -> None:
            arguments = {
                "query": question,
                "query_type": MODE,
                "only_context": True,
                "top_k": top_k,
            }
            result = await client.call_tool("recall", arguments)
            if result.is_error:
                raise RuntimeError(f"MCP recall failed: {result.content}")

        await ask(questions[0])  # warm-up (loads the store)
        for question in questions:
            started = time.perf_counter()
            await ask(question)
            times.append(time.perf_counter() - started)
    return times


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench._data import load_locomo
    from recall_engine import RecallEngine

    samples = load_locomo()[: args.samples]
    questions = [q.text for s in samples for q in s.questions][: args.questions]
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        async with RecallEngine(data_dir) as engine:
            for sample in samples:
                await engine.remember(sample.conversation, dataset_name=sample.sample_id)
        first = await _embedded(data_dir, questions, args.top_k)
        mcp = await _over_stdio(data_dir, questions, args.top_k)
        second = await _embedded(data_dir, questions, args.top_k)
    embedded = [statistics.median(pair) for pair in zip(first, second, strict=True)]
    report = {
        "mode": MODE,
        "embedded": latency_figures(embedded),
        "mcp_stdio": latency_figures(mcp),
    }
    report["mcp_minus_embedded_p50_ms"] = (
        report["mcp_stdio"]["p50_ms"] - report["embedded"]["p50_ms"]
    )
    report["mcp_over_embedded_p50"] = report["mcp_stdio"]["p50_ms"] / report["embedded"]["p50_ms"]
    return report


def main(argv: list[str] | None = None) -> None:
    args = _args(argv)
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name in ("embedded", "mcp_stdio"):
        f = report[name]
        print(f"{name:10s} p50 {f['p50_ms']:7.2f} ms  p95 {f['p95_ms']:7.2f} ms  (n={f['n']})")
    print(
        f"MCP over stdio adds {report['mcp_minus_embedded_p50_ms']:.2f} ms at p50 "
        f"({report['mcp_over_embedded_p50']:.2f}x the embedded p50)"
    )


if __name__ == "__main__":
    main()
