"""Query latency, contention, batch throughput and memory of both embedding backends.

Each backend runs in its own worker process (so peak RSS and torch's process-wide
thread setting are its own) and measures, on the packaged all-MiniLM-L6-v2:

- query p50/p95, one uncached query at a time, on an idle machine;
- the same while a competing multi-threaded torch process (matmuls on every
  core, started and killed by the worker, bounded in time) runs;
- the same while this process embeds bulk batches in another thread (an ingest
  next to a recall);
- batch throughput on short texts, and the process's peak RSS.

    .venv/bin/python -m bench.embedding [--quick] [--repeat 2] [--backends onnx,torch]

Other work on the machine shows up in every figure: compare the backends within
one run (the ratios), and repeat runs (``--repeat``) to see the spread.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time

from bench._data import WORDS

NAMES = ["Ada", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun"]

COMPETITOR = """
import sys, time, torch
threads, seconds = int(sys.argv[1]), float(sys.argv[2])
torch.set_num_threads(threads)
a = torch.randn(768, 768)
print("ready", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    a = torch.tanh(a @ a)
"""


def queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"What did {rng.choice(NAMES)} say about the {rng.choice(WORDS)} "
        f"{rng.choice(WORDS)} in {rng.randint(1990, 2030)}?"
        for _ in range(n)
    ]


def short_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(NAMES)} noted the {' '.join(rng.choice(WORDS) for _ in range(8))} {i}."
        for i in range(n)
    ]


def percentiles(ms: list[float]) -> tuple[float, float]:
    ordered = sorted(ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * len(ordered)))]


def time_queries(embedder, qs: list[str]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    ms = []
    for q in qs:  # embed(), not embed_query(): every query is computed, never cached
        t0 = time.perf_counter()
        embedder.embed([q], batch_size=1)
        ms.append(1000 * (time.perf_counter() - t0))
    return percentiles(ms)


def with_competitor(seconds: float, work):  # type: ignore[no-untyped-def]
    """Run ``work()`` while a torch process keeps every core busy; always stop it."""
    threads = max(1, len(os.sched_getaffinity(0)))
    proc = subprocess.Popen(
        [sys.executable, "-c", COMPETITOR, str(threads), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # "ready": torch is loaded and about to spin
        time.sleep(0.3)
        return work()
    finally:
        proc.kill()
        proc.wait(timeout=10)


def with_bulk(embedder, texts: list[str], work):  # type: ignore[no-untyped-def]
    """Run ``work()`` while another thread of this process embeds batches of 64."""
    stop = threading.Event()

    def bulk() -> None:
        while not stop.is_set():
            embedder.embed(texts, batch_size=64)

    thread = threading.Thread(target=bulk, daemon=True)
    thread.start()
    try:
        time.sleep(0.2)
        return work()
    finally:
        stop.set()
        thread.join()


def worker(backend: str, n_queries: int, n_texts: int, contention_s: float) -> dict:
    from recall_engine.embedding import SentenceTransformerEmbedder
    from recall_engine.embedding.onnx import OnnxEmbedder

    t0 = time.perf_counter()
    embedder = OnnxEmbedder() if backend == "onnx" else SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    out: dict = {"backend": backend, "threads": embedder.threads}
    out["load_s"] = time.perf_counter() - t0
    time_queries(embedder, queries(20, seed=1))
    out["idle"] = time_queries(embedder, queries(n_queries, seed=2))
    out["competing process"] = with_competitor(
        contention_s, lambda: time_queries(embedder, queries(n_queries, seed=3))
    )
    out["bulk in process"] = with_bulk(
        embedder, short_texts(64, seed=5), lambda: time_queries(embedder, queries(n_queries, 4))
    )
    texts = short_texts(n_texts)
    t0 = time.perf_counter()
    embedder.embed(texts, batch_size=64)
    out["batch_per_s"] = n_texts / (time.perf_counter() - t0)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def run_worker(backend: str, args: argparse.Namespace) -> dict:
    command = [
        sys.executable,
        "-m",
        "bench.embedding",
        "--worker",
        backend,
        "--queries",
        str(args.queries),
        "--texts",
        str(args.texts),
        "--contention-seconds",
        str(args.contention_seconds),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"{backend} worker failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def median_report(runs: list[dict]) -> dict:
    def med(get):  # type: ignore[no-untyped-def]
        return statistics.median(get(r) for r in runs)

    out = {"backend": runs[0]["backend"], "threads": runs[0]["threads"]}
    for key in ("load_s", "batch_per_s", "peak_rss_mb"):
        out[key] = med(lambda r, k=key: r[k])
    for key in ("idle", "competing process", "bulk in process"):
        out[key] = (med(lambda r, k=key: r[k][0]), med(lambda r, k=key: r[k][1]))
    return out


def print_table(reports: list[dict], title: str) -> None:
    print(title)
    print(
        "| backend | threads | load s | idle p50/p95 ms | competing torch process p50/p95 ms "
        "(x idle p50) | bulk batches in-process p50/p95 ms | batch texts/s | peak RSS MB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in reports:
        idle, comp, bulk = r["idle"], r["competing process"], r["bulk in process"]
        print(
            f"| {r['backend']} | {r['threads']} | {r['load_s']:.1f} | {idle[0]:.1f} / {idle[1]:.1f}"
            f" | {comp[0]:.1f} / {comp[1]:.1f} ({comp[0] / idle[0]:.1f}x) | {bulk[0]:.1f} / "
            f"{bulk[1]:.1f} | {r['batch_per_s']:.0f} | {r['peak_rss_mb']:.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backends", default="onnx,torch", help="comma-separated: onnx,torch")
    parser.add_argument("--queries", type=int, default=200, help="queries per condition")
    parser.add_argument("--texts", type=int, default=10_000, help="short texts for throughput")
    parser.add_argument(
        "--contention-seconds",
        type=float,
        default=120.0,
        help="upper bound on the competing torch process's life (it is killed sooner)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs; the table shows medians")
    parser.add_argument("--quick", action="store_true", help="smoke run: 30 queries, 500 texts")
    parser.add_argument("--worker", choices=["onnx", "torch"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.queries, args.texts, args.contention_seconds = 30, 500, 30.0
    if args.worker:
        result = worker(args.worker, args.queries, args.texts, args.contention_seconds)
        print(json.dumps(result))
        return
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    runs: dict[str, list[dict]] = {b: [] for b in backends}
    for index in range(args.repeat):
        for backend in backends:
            runs[backend].append(run_worker(backend, args))
        print_table([runs[b][-1] for b in backends], f"run {index + 1} of {args.repeat}")
    if args.repeat > 1:
        print_table([median_report(runs[b]) for b in backends], f"median of {args.repeat} runs")
    print(f"cores usable: {len(os.sched_getaffinity(0))}; load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
