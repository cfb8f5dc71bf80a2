"""Recall p50 through ``RecallEngine.connect`` on loopback vs the embedded engine, in one run.

LoCoMo dev conversations are remembered into a temporary data dir; the same questions
are asked (only_context, top_k 10) by the embedded engine, then through
``recall-engine serve`` started as its own process on 127.0.0.1 and reached with
``RecallEngine.connect`` (one client, keep-alive), then embedded again. A data dir has
one holder, so each pass closes before the next opens it; the embedded figure is the
per-question median of both embedded passes.

    .venv/bin/python -m bench.remote [--samples 1] [--questions 100]
        [--modes CHUNKS_LEXICAL,HYBRID_COMPLETION] [--json]

Reported per mode: p50 and p95 of each path, and the remote p50 minus the embedded p50
(target: <= 3 ms for CHUNKS_LEXICAL).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._loopback import free_port, latency_figures, parser, timed_recalls

ROOT = Path(__file__).resolve().parents[1]


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    options = parser(__doc__)
    options.add_argument("--modes", default="CHUNKS_LEXICAL,HYBRID_COMPLETION")
    return options.parse_args(argv)


async def _embedded(data_dir: Path, modes: list[str], questions: list[str], top_k: int) -> dict:
    from recall_engine import RecallEngine

    async with RecallEngine(data_dir) as engine:
        return await timed_recalls(engine, modes, questions, top_k)


async def _remote(
    data_dir: Path, key: str, modes: list[str], questions: list[str], top_k: int
) -> dict:
    from recall_engine import RecallEngine

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RECALL_ENGINE_DATA_DIR": str(data_dir)}
    argv = [sys.executable, "-m", "recall_engine.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*argv, "--rate-limit", "0", "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError("recall-engine serve exited at start") from None
                time.sleep(0.1)
        async with RecallEngine.connect(f"http://127.0.0.1:{port}", api_key=key) as engine:
            return await timed_recalls(engine, modes, questions, top_k)
    finally:
        server.terminate()
        server.wait(timeout=30)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench._data import load_locomo
    from recall_engine import RecallEngine
    from recall_engine.tenants.registry import ADMIN

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    samples = load_locomo()[: args.samples]
    questions = [q.text for s in samples for q in s.questions][: args.questions]
    key = secrets.token_urlsafe(24)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        async with RecallEngine(data_dir) as engine:
            for sample in samples:
                await engine.remember(sample.conversation, dataset_name=sample.sample_id)
            engine.tenants.registry.add_key(key, ADMIN)
        first = await _embedded(data_dir, modes, questions, args.top_k)
        remote = await _remote(data_dir, key, modes, questions, args.top_k)
        second = await _embedded(data_dir, modes, questions, args.top_k)
    report: dict[str, Any] = {"questions": len(questions), "modes": {}}
    for mode in modes:
        embedded = [statistics.median(p) for p in zip(first[mode], second[mode], strict=True)]
        figures = {"embedded": latency_figures(embedded), "remote": latency_figures(remote[mode])}
        figures["remote_minus_embedded_p50_ms"] = (
            figures["remote"]["p50_ms"] - figures["embedded"]["p50_ms"]
        )
        report["modes"][mode] = figures
    return report


def main(argv: list[str] | None = None) -> None:
    args = _args(argv)
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for mode, f in report["modes"].items():
        for path in ("embedded", "remote"):
            p = f[path]
            print(f"{mode:18s} {path:8s} p50 {p['p50_ms']:7.2f} ms  p95 {p['p95_ms']:7.2f} ms")
        print(f"{mode:18s} remote adds {f['remote_minus_embedded_p50_ms']:.2f} ms at p50")


if __name__ == "__main__":
    main()
