"""The distributed profile against the embedded one, and server replicas, in one run.

On LoCoMo dev conversations (rules graph on), measured on this machine:

1. ingest throughput (turns/s) and recall p50/p95 of CHUNKS_LEXICAL,
   HYBRID_COMPLETION and GRAPH_COMPLETION (only_context, each question against its
   own conversation, query vectors computed once first), for an embedded engine
   (Kuzu + LanceDB in a data dir) and a distributed one (FalkorDB, LanceDB on
   moto S3, Postgres, Redis), interleaved question by question on one embedder;
   targets: distributed recall p50 <= 3x embedded, ingest >= 50% of embedded;
2. ``/recall/full_recall`` req/s and p50/p95 of ``recall-engine serve`` replicas
   (separate processes, ports and data dirs on the distributed profile; clients
   spread round robin over them), with 1 and 2 replicas, beside one embedded
   server on the same corpus;
3. the cross-replica visibility delay: a source uploaded through replica A, then
   replica B polled (``full_recall``) until it returns it; p50/p95/max from A's
   acknowledgement.

    .venv/bin/python -m bench.scale [--samples 2] [--questions 100]
        [--clients 8,32] [--replicas 1,2] [--seconds 20] [--requests 300]
        [--writes 20] [--reuse-env] [--json]

It starts a FalkorDB and a moto S3 server of its own (``.ci/services.py`` with
its own ports and pid folder) beside the machine's Postgres and Redis and stops
them at the end; with ``--reuse-env`` it uses the servers whose ``make services``
lines are exported. It writes under names of its own (Postgres schema, key and
graph prefix, S3 prefix) and removes them afterwards.

Every server, replica and client shares the machine's cores: on a 2-core machine
two replicas cannot serve more than one, so the replica rows show that the
profile works and what it costs, not how it scales.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._loopback import free_port, latency_figures

MODES = ("CHUNKS_LEXICAL", "HYBRID_COMPLETION", "GRAPH_COMPLETION")
RECALL_TARGET = 3.0
INGEST_TARGET = 0.5
WARM_UP = "Mara Lind met Tomas Berg in Oslo on 4 May 2023 to plan the harbour survey."


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Two cores cap what replicas can show here: see the module docstring.",
    )
    parser.add_argument("--samples", type=int, default=2, help="LoCoMo dev conversations")
    parser.add_argument("--questions", type=int, default=100, help="at most, per mode")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--clients", default="8,32", help="server concurrency levels")
    parser.add_argument("--replicas", default="1,2", help="replica counts")
    parser.add_argument("--requests", type=int, default=200, help="at most, per level")
    parser.add_argument("--seconds", type=float, default=15.0, help="at most, per level")
    parser.add_argument("--rounds", type=int, default=3, help="of every server level")
    parser.add_argument("--warmup", type=int, default=5, help="requests per replica and level")
    parser.add_argument("--writes", type=int, default=20, help="visibility probes")
    parser.add_argument("--reuse-env", action="store_true", help="the exported servers")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    for name in ("samples", "questions", "requests", "rounds", "writes"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return args


async def _ingest(engines: dict[str, Any], samples: list[Any]) -> dict[str, Any]:
    """Each conversation into each engine in turn, in alternating order (so that
    load drifts hit both), after one short untimed item each (first-use costs)."""
    rows: dict[str, dict[str, float]] = {
        name: {"seconds": 0.0, "chunks": 0, "entities": 0, "relations": 0, "events": 0}
        for name in engines
    }
    for engine in engines.values():
        await engine.remember(WARM_UP, dataset_name="warm-up", show_progress=False)
    names = list(engines)
    for n, sample in enumerate(samples):
        for name in names if n % 2 == 0 else names[::-1]:
            engine = engines[name]
            started = time.perf_counter()
            stored = await engine.remember(
                sample.conversation, dataset_name=sample.sample_id, show_progress=False
            )
            row = rows[name]
            row["seconds"] += time.perf_counter() - started
            row["chunks"] += stored.chunk_count
            row["entities"] += stored.entity_count
            row["relations"] += stored.relation_count
            row["events"] += stored.event_count
    for row in rows.values():
        row["per_s"] = row["chunks"] / row["seconds"]
    return rows


async def _recalls(
    engines: dict[str, Any], questions: list[tuple[str, str]], modes: list[str]
) -> dict[str, dict[str, Any]]:
    """p50/p95 per mode and engine; the engines take turns per question, in
    alternating order, after one warm-up recall each."""
    for engine in engines.values():
        for _, question in questions:
            engine.embedder.embed_query(question)
    out: dict[str, dict[str, Any]] = {}
    names = list(engines)
    for mode in modes:
        times: dict[str, list[float]] = {name: [] for name in names}
        for engine in engines.values():
            sample, question = questions[0]
            await engine.recall(question, mode, datasets=[sample], only_context=True, top_k=10)
        for n, (sample, question) in enumerate(questions):
            for name in names if n % 2 == 0 else names[::-1]:
                started = time.perf_counter()
                await engines[name].recall(
                    question, mode, datasets=[sample], only_context=True, top_k=10
                )
                times[name].append(time.perf_counter() - started)
        out[mode] = {name: latency_figures(values) for name, values in times.items()}
    return out


async def compare_engines(
    root: Path, overrides: dict[str, Any], embedder: Any, args: argparse.Namespace
) -> dict[str, Any]:
    from bench._data import load_locomo
    from recall_engine import RecallEngine

    samples = load_locomo()[: args.samples]
    questions = [(s.sample_id, q.text) for s in samples for q in s.questions][: args.questions]
    embedded = RecallEngine(root / "embedded", embedder=embedder)
    distributed = RecallEngine(root / "distributed", embedder=embedder, **overrides)
    engines = {"embedded": embedded, "distributed": distributed}
    try:
        ingest = await _ingest(engines, samples)
        recall = await _recalls(engines, questions, args.modes.split(","))
    finally:
        distributed.close()
        embedded.close()
    return {
        "corpus": f"LoCoMo dev, {len(samples)} conversations, {len(questions)} questions",
        "ingest": ingest,
        "ingest_ratio": ingest["distributed"]["per_s"] / ingest["embedded"]["per_s"],
        "recall": recall,
    }


async def _servers(
    data_dirs: list[Path], key: str, env: dict[str, str] | None
) -> tuple[list[str], list[subprocess.Popen[bytes]]]:
    """One ``serve`` process per data dir, started one after the other (the first
    seeds the shared key store, the next ones find the key there)."""
    from bench.server import HOST, start_server, wait_ready

    bases, processes = [], []
    try:
        for data_dir in data_dirs:
            port = free_port()
            processes.append(start_server(data_dir, port, key, env=env))
            bases.append(f"http://{HOST}:{port}")
            await wait_ready(bases[-1], processes[-1])
    except BaseException:
        _stop(processes)
        raise
    return bases, processes


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


async def _rounds(
    targets: dict[str, list[str]], key: str, questions: list[str], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every (clients, target) level once per round, the targets taking turns within
    a concurrency level (so that load drifts hit all); per cell the medians over rounds."""
    from bench.server import run_level

    cells: dict[tuple[int, str], list[dict[str, Any]]] = {}
    offset = 0
    for _ in range(args.rounds):
        for clients in (int(c) for c in args.clients.split(",")):
            for label, bases in targets.items():
                row = await run_level(
                    bases, key, questions, clients=clients, mode="fast", offset=offset,
                    requests=args.requests, seconds=args.seconds, warmup=args.warmup,
                    max_results=10,
                )  # fmt: skip
                offset += args.requests + args.warmup * len(bases)
                cells.setdefault((clients, label), []).append(row)
    out = []
    for (clients, label), rows in cells.items():
        out.append(
            {
                "profile": label,
                "clients": clients,
                "rounds": len(rows),
                "rps": statistics.median(r["rps"] for r in rows),
                "p50_ms": statistics.median(r["p50_ms"] or math.nan for r in rows),
                "p95_ms": statistics.median(r["p95_ms"] or math.nan for r in rows),
                "rps_each": [r["rps"] for r in rows],
                "requests": sum(r["requests"] for r in rows),
                "errors": sum(r["errors"] for r in rows),
            }
        )
    return out


async def _visibility(
    writer: str, reader: str, key: str, sub_tenant: str, args: argparse.Namespace
) -> dict[str, Any]:
    """From A's acknowledgement of an upload until B's ``full_recall`` returns it:
    when the first poll that found it began and when it answered; and the polls
    that began more than ``vector_refresh_s`` after the acknowledgement and still
    missed it (the stated bound says there are none)."""
    import httpx

    from bench.server import TENANT
    from recall_engine.config import RecallConfig

    bound = RecallConfig.load().vector_refresh_s
    headers = {"Authorization": f"Bearer {key}"}
    began, seen, acks, polls = [], [], [], []
    late_misses = 0
    run = secrets.token_hex(3)
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        for n in range(args.writes):
            source_id = f"scale-{run}-{n}"
            text = f"Probe {run} number {n}: the parcel code is zq{run}x{n}."
            body = {
                "tenant_id": TENANT,
                "sub_tenant_id": sub_tenant,
                "app_sources": [{"id": source_id, "title": source_id, "text": text}],
            }
            started = time.perf_counter()
            response = await http.post(f"{writer}/ingestion/upload_knowledge", json=body)
            if response.status_code != 200 or response.json().get("failed_count"):
                raise SystemExit(f"bench: upload through replica A failed: {response.text[:500]}")
            acked = time.perf_counter()
            acks.append(acked - started)
            query = {"tenant_id": TENANT, "sub_tenant_id": sub_tenant, "query": text}
            tries = 0
            while True:
                tries += 1
                asked = time.perf_counter()
                found = await http.post(f"{reader}/recall/full_recall", json=query)
                chunks = found.json().get("chunks", []) if found.status_code == 200 else []
                if any(chunk.get("source_id") == source_id for chunk in chunks):
                    break
                if asked - acked > bound:
                    late_misses += 1
                if time.perf_counter() - acked > 60:
                    raise SystemExit(f"bench: replica B did not see {source_id} within 60 s")
                await asyncio.sleep(0.01)
            began.append(asked - acked)
            seen.append(time.perf_counter() - acked)
            polls.append(tries)
    return {
        "writes": args.writes,
        "bound_s": bound,
        "began": latency_figures(began),
        "seen": {**latency_figures(seen), "max_ms": 1000 * max(seen)},
        "late_misses": late_misses,
        "ack_p50_ms": latency_figures(acks)["p50_ms"],
        "polls_p50": statistics.median(polls),
    }


async def compare_servers(
    root: Path, profile: Any, embedder: Any, args: argparse.Namespace
) -> dict[str, Any]:
    """One embedded server and the replicas on the same corpus, all started before
    the first level (an idle server costs nothing), then the rounds, then the probe."""
    from bench.server import ingest_tenant

    key = secrets.token_urlsafe(24)
    counts = sorted({int(r) for r in args.replicas.split(",")})
    out: dict[str, Any] = {}
    questions, out["embedded_ingest_s"] = await ingest_tenant(
        root / "embedded-server", args.samples, embedder=embedder
    )
    _, out["distributed_ingest_s"] = await ingest_tenant(
        root / "loader", args.samples, embedder=embedder, **profile.overrides
    )
    embedded, first = await _servers([root / "embedded-server"], key, env=None)
    processes = list(first)
    try:
        dirs = [root / f"replica-{n}" for n in range(max(max(counts), 2))]
        replicas, more = await _servers(dirs, key, env=profile.process_env())
        processes += more
        targets = {"embedded": embedded}
        targets |= {f"distributed x{count}": replicas[:count] for count in counts}
        out["levels"] = await _rounds(targets, key, questions, args)
        sample = json.loads(questions[0])[0]
        out["visibility"] = await _visibility(replicas[0], replicas[1], key, sample, args)
    finally:
        _stop(processes)
    return out


def _server_line(row: dict[str, Any]) -> str:
    each = ", ".join(f"{rps:.0f}" for rps in row["rps_each"])
    return (
        f"  {row['profile']:<15} clients={row['clients']:>3}  {row['rps']:>6.1f} req/s  "
        f"p50 {row['p50_ms']:.0f} ms  p95 {row['p95_ms']:.0f} ms  (medians of "
        f"{row['rounds']} rounds: {each} req/s; {row['requests']} requests, "
        f"{row['errors']} errors)"
    )


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from bench import _profile
    from recall_engine.config import RecallConfig
    from recall_engine.embedding import make_embedder

    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        root = Path(tmp)
        servers = _profile.from_env() if args.reuse_env else _profile.started(root / "services")
        with servers as profile:
            embedder = make_embedder(RecallConfig())
            embedder.embed(["warm up"])
            report = await compare_engines(root, profile.overrides, embedder, args)
            if not args.json:
                _print_engines(report)
            report["servers"] = await compare_servers(root, profile, embedder, args)
    report["cpus"] = len(os.sched_getaffinity(0))
    report["load_average"] = os.getloadavg()
    return report


def _print_engines(report: dict[str, Any]) -> None:
    print(report["corpus"], flush=True)
    for name, row in report["ingest"].items():
        print(
            f"  ingest {name:<11} {row['chunks']} turns in {row['seconds']:.1f} s = "
            f"{row['per_s']:.1f} turns/s ({row['entities']} entities, {row['relations']} "
            f"relations, {row['events']} events)"
        )
    ratio = report["ingest_ratio"]
    verdict = "met" if ratio >= INGEST_TARGET else "MISSED"
    print(f"  ingest distributed / embedded: {100 * ratio:.0f}% (target >= 50%: {verdict})")
    for mode, rows in report["recall"].items():
        emb, dist = rows["embedded"], rows["distributed"]
        ratio = dist["p50_ms"] / emb["p50_ms"]
        verdict = "met" if ratio <= RECALL_TARGET else "MISSED"
        print(
            f"  {mode:<18} embedded p50 {emb['p50_ms']:.1f} / p95 {emb['p95_ms']:.1f} ms; "
            f"distributed p50 {dist['p50_ms']:.1f} / p95 {dist['p95_ms']:.1f} ms; "
            f"p50 x{ratio:.2f} (target <= 3x: {verdict})"
        )
    print("server /recall/full_recall (fast) ...", flush=True)


def _print_tail(report: dict[str, Any]) -> None:
    servers = report["servers"]
    print("server /recall/full_recall (fast):")
    for row in servers["levels"]:
        print(_server_line(row))
    v = servers["visibility"]
    seen, began = v["seen"], v["began"]
    print(
        f"cross-replica visibility, {v['writes']} uploads through replica A, replica B polled "
        f"every 10 ms (A's ack p50 {v['ack_p50_ms']:.0f} ms):\n"
        f"  returned by B: p50 {seen['p50_ms']:.0f} ms, p95 {seen['p95_ms']:.0f} ms, max "
        f"{seen['max_ms']:.0f} ms after A's ack; the poll that found it began p50 "
        f"{began['p50_ms']:.0f} / p95 {began['p95_ms']:.0f} ms after it\n"
        f"  polls begun more than vector_refresh_s = {v['bound_s']:g} s after the ack that "
        f"missed it: {v['late_misses']}"
    )
    print(
        f"  server corpus ingest: embedded {servers['embedded_ingest_s']:.1f} s, "
        f"distributed {servers['distributed_ingest_s']:.1f} s"
    )
    load = ", ".join(f"{x:.1f}" for x in report["load_average"])
    print(
        f"{report['cpus']} CPUs (load average {load}): every replica, server and client shares "
        "them, so 2 cores cap what a second replica can add here."
    )


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    report = asyncio.run(_run(args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_tail(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
