"""What keeping a mirror fresh costs when the vector tables live on S3 (issue 21 item 2).

A moto S3 server is started on 127.0.0.1; LoCoMo dev conversations are remembered
into a tenant whose tables live at an ``s3://`` URI. Then, in one run:

- the version check alone (``chunk_changes`` when nothing changed: one request);
- recall p50 / p95 with ``vector_refresh_s=1`` (a check at most once a second) and
  with ``vector_refresh_s=0`` (a check before every read), and the same questions on
  a local data dir for reference;
- the catch-up: a second engine (its own data dir) remembers one more conversation,
  and the first one's next sync applies it (row-id scan and fetch of the new rows).

    .venv/bin/python -m bench.s3_freshness [--samples 2] [--questions 100]
        [--mode CHUNKS_LEXICAL] [--json]

The figures are loopback figures (moto in-process memory, no network): a real
object store adds its round trip to each version check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench._loopback import free_port, latency_figures, timed_recalls

BUCKET = "recall-engine-bench"


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2, help="LoCoMo dev conversations")
    parser.add_argument("--questions", type=int, default=100, help="at most")
    parser.add_argument("--mode", default="CHUNKS_LEXICAL")
    parser.add_argument("--checks", type=int, default=200, help="version checks timed")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser.parse_args(argv)


def _start_moto() -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            request = urllib.request.Request(f"{endpoint}/{BUCKET}", method="PUT")
            urllib.request.urlopen(request, timeout=2).close()
            break
        except OSError:
            time.sleep(0.1)
    options = {
        "endpoint": endpoint,
        "region": "us-east-1",
        "allow_http": "true",
        "aws_access_key_id": "bench",
        "aws_secret_access_key": "bench",
    }
    return server, options


async def _ask(engine: Any, mode: str, questions: list[str]) -> list[float]:
    return (await timed_recalls(engine, [mode], questions, top_k=10))[mode]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench._data import load_locomo
    from recall_engine import RecallEngine

    samples = load_locomo()[: args.samples + 1]
    extra, samples = samples[-1], samples[:-1]
    questions = [q.text for s in samples for q in s.questions][: args.questions]
    server, options = _start_moto()
    uri = f"s3://{BUCKET}/freshness"
    report: dict[str, Any] = {"questions": len(questions), "mode": args.mode}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            shared = {"vector_uri": uri, "vector_storage_options": options}
            async with RecallEngine(root / "local") as local:
                for sample in samples:
                    await local.remember(sample.conversation, dataset_name=sample.sample_id)
                report["local"] = latency_figures(await _ask(local, args.mode, questions))
            async with RecallEngine(root / "a", **shared) as writer:
                for sample in samples:
                    await writer.remember(sample.conversation, dataset_name=sample.sample_id)
                report["chunks"] = len(writer.store().index)
            for refresh in (1.0, 0.0):
                async with RecallEngine(root / "b", vector_refresh_s=refresh, **shared) as reader:
                    key = f"s3_refresh_{refresh:g}s"
                    report[key] = latency_figures(await _ask(reader, args.mode, questions))
                    store = reader.store()
                    state = store._chunk_state
                    checks = []
                    for _ in range(args.checks):
                        started = time.perf_counter()
                        store.vectors.chunk_changes(state, have=store.index.alive)
                        checks.append(time.perf_counter() - started)
                    report["version_check"] = latency_figures(checks)
            async with (
                RecallEngine(root / "b", vector_refresh_s=3600, **shared) as reader,
                RecallEngine(root / "c", **shared) as other,
            ):
                store = reader.store()
                before = len(store.index)
                await other.remember(extra.conversation, dataset_name=extra.sample_id)
                started = time.perf_counter()
                store.sync(force=True)
                report["catch_up"] = {
                    "ms": (time.perf_counter() - started) * 1000,
                    "new_chunks": len(store.index) - before,
                }
    finally:
        server.terminate()
        server.wait(timeout=30)
    return report


def main(argv: list[str] | None = None) -> None:
    args = _args(argv)
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['questions']} questions, {report['chunks']} chunks, {report['mode']}")
    for key in ("local", "s3_refresh_1s", "s3_refresh_0s", "version_check"):
        f = report[key]
        print(f"  {key:<16} p50 {f['p50_ms']:7.2f} ms   p95 {f['p95_ms']:7.2f} ms   (n={f['n']})")
    c = report["catch_up"]
    print(f"  catch_up         {c['ms']:7.1f} ms for {c['new_chunks']} new chunks")


if __name__ == "__main__":
    main()
