"""Routing latency: p50/p99 per query over a few thousand varied queries.

    .venv/bin/python -m bench.router [--rounds 5] [--seed 0]

Queries come from every rule's examples, plain factual questions, and
variations of both (padding, casing, negation, mixed cues). Each query is timed
on its own; the table shows percentiles over all timings of all rounds, then
the time each pathological input takes (median of the rounds). The target is
p50 <= 20 microseconds; pathological inputs must stay under 50 ms.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script, this file's folder leads sys.path and this file's name would
# shadow the router package it measures.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from router import DEFAULT_RULES, Router  # noqa: E402

PLAIN = [
    "Who won Nobel Prizes?",
    "Where was Einstein born?",
    "What is the capital of France?",
    "List all customers in Berlin",
    "Which team owns the billing service?",
    "What does Ann prefer for breakfast?",
    "How many open tickets are assigned to Bob?",
    "What is our refund policy for annual plans?",
    "Who reviewed the pricing page?",
    "Which datasets mention Kubernetes?",
]
PADDING = [
    "",
    "Quick question: ",
    "Based on the notes from the last three meetings with the platform team, ",
    "For the customer called Acme Corporation in the EMEA region, ",
]
SUFFIXES = [
    "",
    " Thanks!",
    " Please keep it short.",
    " in the incident notes",
    " (see ticket #1984)",
]
NEGATIONS = ["", "I don't need the ", "not a ", "without any "]


def make_queries(count: int, seed: int) -> list[str]:
    """``count`` varied queries, reproducible from ``seed``."""
    rng = random.Random(seed)
    examples = [e for rule in DEFAULT_RULES for e in rule.examples]
    bases = examples + PLAIN * 3
    queries: list[str] = []
    while len(queries) < count:
        base = rng.choice(bases)
        if rng.random() < 0.2:
            base = f"{base.rstrip('?')} and {rng.choice(bases).lower()}"
        query = rng.choice(PADDING) + rng.choice(NEGATIONS) + base + rng.choice(SUFFIXES)
        queries.append(query.upper() if rng.random() < 0.05 else query)
    return queries


PATHOLOGICAL: dict[str, str] = {
    "100 kB prose, cue at end": "the quick brown fox jumps. " * 3800 + "why?",
    "10,000 x 'a '": "a " * 10_000,
    "50,000 x 'a '": "a " * 50_000,
    "100 kB single word": "x" * 100_000,
    "100 kB of '\"'": '"' * 100_000,
    "nested quotes around 'why'": '"' * 50_000 + "why" + '"' * 50_000,
    "deep parentheses": "(" * 50_000 + ")" * 50_000,
    "'how is ' x 15,000": "how is " * 15_000,
    "near-miss 'awhy bwhen' x 9,000": "awhy bwhen " * 9_000,
    "'not why ' x 12,500": "not why " * 12_500,
    "100 kB of digits": "1" * 100_000,
    "'1999 ' x 20,000": "1999 " * 20_000,
}


def time_each(route: Callable[[str], object], queries: list[str]) -> list[float]:
    """Microseconds per call, one timing per query."""
    clock = time.perf_counter_ns
    samples = []
    for query in queries:
        started = clock()
        route(query)
        samples.append((clock() - started) / 1000)
    return samples


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    router = Router()
    queries = make_queries(args.queries, args.seed)
    time_each(router.route, queries)  # warm up caches and the allocator

    logger = logging.getLogger("query_router")
    rows = []
    for label, level in (
        ("logging off (WARNING)", logging.WARNING),
        ("INFO to NullHandler", logging.INFO),
    ):
        logger.setLevel(level)
        if level == logging.INFO:
            logger.addHandler(logging.NullHandler())
            logger.propagate = False
        samples = [s for _ in range(args.rounds) for s in time_each(router.route, queries)]
        rows.append(
            (
                label,
                statistics.median(samples),
                percentile(samples, 50),
                percentile(samples, 99),
                max(samples),
            )
        )
    logger.setLevel(logging.WARNING)

    print(
        f"router latency: {len(queries)} queries x {args.rounds} rounds, "
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs"
    )
    print(f"{'setting':24s} {'p50 us':>8s} {'p99 us':>8s} {'max us':>9s}")
    for label, _median, p50, p99, worst in rows:
        print(f"{label:24s} {p50:8.1f} {p99:8.1f} {worst:9.1f}")
    verdict = "meets" if rows[0][2] <= 20 else "MISSES"
    print(f"p50 target <= 20 us: {verdict}\n")

    print(f"{'pathological input':34s} {'chars':>7s} {'median ms':>10s}  routed")
    for name, query in PATHOLOGICAL.items():
        times = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            decision = router.route(query)
            times.append((time.perf_counter() - started) * 1000)
        flag = "" if max(times) < 50 else "  OVER 50 ms"
        print(
            f"{name:34s} {len(query):7d} {statistics.median(times):10.2f}  "
            f"{decision.search_type.value}{flag}"
        )


if __name__ == "__main__":
    main()
