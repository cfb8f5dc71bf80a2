"""HTTP throughput and latency of ``/recall/full_recall`` on the LoCoMo dev corpus.

The LoCoMo dev conversations (one chunk per turn) are ingested into one tenant
through the tenant API, then a real server (``python -m recall_engine.server``
in its own process, on 127.0.0.1 only) answers the LoCoMo questions from 1, 8
and 32 concurrent clients, in fast and thinking mode. Each level runs at most
``--requests`` requests or ``--seconds`` seconds, after a short warm-up.
Reported per level: requests per second, p50, p95 and p99 latency, the slowest
request, errors.

    .venv/bin/python -m bench.server [--clients 1,8,32] [--modes fast,thinking]
        [--requests 400] [--seconds 30] [--samples 5] [--json]

Target: fast-mode p95 <= 100 ms at 8 concurrent clients on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench._loopback import free_port

HOST = "127.0.0.1"
TENANT = "locomo"


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,8,32", help="concurrency levels")
    parser.add_argument("--modes", default="fast,thinking")
    parser.add_argument("--requests", type=int, default=150, help="at most, per level")
    parser.add_argument("--seconds", type=float, default=30.0, help="at most, per level")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--samples", type=int, default=5, help="LoCoMo dev conversations")
    parser.add_argument("--max-results", type=int, default=10)
    parser.add_argument(
        "--data-dir",
        default=None,
        help="default: a temporary folder; reused when it holds the corpus",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser.parse_args(argv)


async def ingest_tenant(data_dir: Path, samples: int, **config: Any) -> tuple[list[str], float]:
    """Remember the first ``samples`` LoCoMo dev conversations into the tenant, one
    sub-tenant each (one source per turn), through an engine on ``data_dir`` with
    the ``config`` overrides; the questions as JSON ``[sample, question]`` and the
    seconds it took. A data dir (and stores) that hold the tenant are reused."""
    from bench._data import load_locomo
    from recall_engine import RecallEngine
    from recall_engine.tenants.errors import TenantAlreadyExistsError

    loaded = load_locomo()[:samples]
    started = time.perf_counter()
    async with RecallEngine(data_dir, **config) as engine:
        try:
            await engine.create_tenant(TENANT)
        except TenantAlreadyExistsError:  # a --data-dir ingested by an earlier run
            loaded_before = True
        else:
            loaded_before = False
        for sample in [] if loaded_before else loaded:
            sources = [
                {
                    "id": message.id,
                    "title": f"{sample.sample_id} {message.speaker}",
                    "type": "conversation",
                    "timestamp": message.timestamp,
                    "text": f"{message.speaker}: {message.text}",
                    "additional_metadata": {"sample": sample.sample_id},
                }
                for message in sample.conversation.messages
            ]
            result = await engine.upload_knowledge(TENANT, sources, sub_tenant_id=sample.sample_id)
            if result.failed_count:
                failed = [r.error for r in result.results if r.error][:3]
                print(f"warning: {result.failed_count} turns not stored: {failed}", file=sys.stderr)
    questions = [(s.sample_id, q.text) for s in loaded for q in s.questions]
    return [json.dumps(q) for q in questions], time.perf_counter() - started


def start_server(
    data_dir: Path, port: int, key: str, *, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A ``recall_engine.server`` process on 127.0.0.1:``port`` with admin key ``key``
    (no rate limit); ``env``: its whole environment (default: this one's)."""
    command = [
        sys.executable, "-m", "recall_engine.server", "--data-dir", str(data_dir),
        "--host", HOST, "--port", str(port), "--admin-key", key, "--rate-limit", "0",
        "--log-level", "warning",
    ]  # fmt: skip
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


async def wait_ready(base: str, process: subprocess.Popen[bytes]) -> None:
    import httpx

    deadline = time.monotonic() + 120
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"server exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if (await client.get(f"{base}/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise SystemExit("server did not start in 120 s")


async def run_level(
    bases: list[str],
    key: str,
    questions: list[str],
    *,
    clients: int,
    mode: str,
    offset: int,
    requests: int,
    seconds: float,
    warmup: int,
    max_results: int,
) -> dict[str, Any]:
    """One concurrency level: at most ``requests`` requests or ``seconds`` seconds
    from ``clients`` concurrent clients, client n on ``bases[n % len(bases)]``
    (round robin over replicas), after ``warmup`` requests to each base.
    Questions from ``offset`` on, so that no level asks what an earlier one asked
    (the server caches query embeddings)."""
    import httpx

    from bench._data import percentile

    latencies: list[float] = []
    errors = 0
    issued = 0
    stop_at = 0.0  # set after the warm-up
    per_base = -(-clients // len(bases))
    limits = httpx.Limits(max_connections=per_base, max_keepalive_connections=per_base)
    headers = {"Authorization": f"Bearer {key}"}
    https = [
        httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60)
        for base in bases
    ]

    async def one(http: httpx.AsyncClient, n: int) -> float | None:
        sample, question = json.loads(questions[(offset + n) % len(questions)])
        body = {
            "tenant_id": TENANT,
            "sub_tenant_id": sample,
            "query": question,
            "mode": mode,
            "max_results": max_results,
        }
        t0 = time.perf_counter()
        response = await http.post("/recall/full_recall", json=body)
        elapsed = time.perf_counter() - t0
        return elapsed if response.status_code == 200 else None

    async def worker(http: httpx.AsyncClient) -> None:
        nonlocal issued, errors
        while issued < requests and time.perf_counter() < stop_at:
            n = issued
            issued += 1
            elapsed = await one(http, n + warmup * len(bases))
            if elapsed is None:
                errors += 1
            else:
                latencies.append(elapsed)

    try:
        for b, http in enumerate(https):
            for n in range(warmup):
                await one(http, b * warmup + n)
        started = time.perf_counter()
        stop_at = started + seconds
        await asyncio.gather(*(worker(https[c % len(https)]) for c in range(clients)))
        wall = time.perf_counter() - started
    finally:
        for http in https:
            await http.aclose()
    return {
        "mode": mode,
        "clients": clients,
        "replicas": len(bases),
        "requests": len(latencies) + errors,
        "errors": errors,
        "rps": round(len(latencies) / wall, 1) if wall > 0 else 0.0,
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1) if latencies else None,
        "p95_ms": round(1000 * percentile(latencies, 0.95), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1) if latencies else None,
        "max_ms": round(1000 * max(latencies), 1) if latencies else None,
    }


def line(row: dict[str, Any]) -> str:
    return (
        f"{row['mode']:8} clients={row['clients']:>3}  {row['rps']:>7.1f} req/s  "
        f"p50={row['p50_ms']} ms  p95={row['p95_ms']} ms  p99={row['p99_ms']} ms  "
        f"max={row['max_ms']} ms  "
        f"requests={row['requests']} errors={row['errors']}"
    )


@contextlib.contextmanager
def admin_key(data_dir: Path) -> Iterator[str]:
    """An admin key for one run. A new data dir's empty key store is seeded by the
    server's ``--admin-key``; a data dir an earlier run left holds that run's key
    (hashed), so a new admin key is created in it, as ``recall-engine keys create
    --admin`` does, and revoked when the run ends."""
    from recall_engine.config import RecallConfig
    from recall_engine.state.store import open_state, registry_source
    from recall_engine.tenants.registry import ADMIN, TenantRegistry

    config = RecallConfig.load(data_dir=data_dir)
    state = open_state(config)
    registry = TenantRegistry(registry_source(config, state))
    try:
        if not registry.keys(None):
            yield secrets.token_urlsafe(24)
            return
        record, key = registry.create_key(ADMIN)
        try:
            yield key
        finally:
            registry.revoke_key(record.key_id)
    finally:
        registry.close()
        state.close()


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-server-") as tmp,
        admin_key(Path(args.data_dir or tmp)) as key,
    ):
        data_dir = Path(args.data_dir or tmp)
        questions, ingest_s = await ingest_tenant(data_dir, args.samples)
        port = free_port()
        base = f"http://{HOST}:{port}"
        process = start_server(data_dir, port, key)
        try:
            await wait_ready(base, process)
            levels: list[dict[str, Any]] = []
            offset = 0
            for mode in args.modes.split(","):
                for clients in (int(c) for c in args.clients.split(",")):
                    row = await run_level(
                        [base],
                        key,
                        questions,
                        clients=clients,
                        mode=mode,
                        offset=offset,
                        requests=args.requests,
                        seconds=args.seconds,
                        warmup=args.warmup,
                        max_results=args.max_results,
                    )
                    offset += args.warmup + args.requests + clients
                    levels.append(row)
                    if not args.json:
                        print(line(row), flush=True)
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {
        "corpus": f"LoCoMo dev, {args.samples} conversations, {len(questions)} questions",
        "ingest_s": round(ingest_s, 1),
        "cpus": len(os.sched_getaffinity(0)),
        "levels": levels,
    }


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    report = asyncio.run(_main(args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['corpus']}; ingest {report['ingest_s']} s; {report['cpus']} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
