"""The cost of two source trees, side by side: ingest and routed-recall CPU on LoCoMo.

Each tree (a checkout or ``git worktree`` of some commit; ``.`` for this one) runs in a
fresh process with ``PYTHONPATH`` set to it: it remembers the first ``--conversations``
LoCoMo dev conversations into a temporary store, embeds every question once (the query
cache keeps it), then recalls each question with the routed default (``only_context``,
``top_k`` 25). ``time.process_time()`` (every thread of the process) is taken around the
ingest and around each recall, so the figures stay comparable on a busy machine where
wall time is not; wall-clock rates are reported beside them. Trees alternate,
``--rounds`` times, in the order given.

    .venv/bin/python -m bench.versions BASE_TREE . [--conversations 2] [--rounds 2]
        [--json FILE]

The child uses only ``bench.locomo``'s ``load_locomo``, ``ingest`` and
``warm_query_cache`` and ``RecallEngine.recall``, so a tree from before this bench
existed can be measured as long as it has those.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import asyncio, json, statistics, sys, tempfile, time
from pathlib import Path
from bench import locomo
from recall_engine import RecallEngine

async def main(n):
    samples = locomo.load_locomo()[:n]
    with tempfile.TemporaryDirectory() as tmp:
        engine = RecallEngine(Path(tmp) / "data", graph_extractor="rules")
        engine.embedder.embed(["warm up"])
        report = {}
        w0, c0 = time.perf_counter(), time.process_time()
        await locomo.ingest(engine, samples, report)
        ingest_wall, ingest_cpu = time.perf_counter() - w0, time.process_time() - c0
        locomo.warm_query_cache(engine, samples)
        wall, cpu = [], []
        for sample in samples:
            for q in sample.questions:
                t0, k0 = time.perf_counter(), time.process_time()
                await engine.recall(q.text, datasets=[sample.sample_id], top_k=25,
                                    only_context=True)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - k0)
        engine.close()
    n_msgs = report["ingested_messages"]
    print(json.dumps({
        "messages": n_msgs, "questions": len(wall),
        "ingest_messages_per_s": n_msgs / ingest_wall,
        "ingest_cpu_ms_per_message": 1000 * ingest_cpu / n_msgs,
        "recall_p50_ms": 1000 * statistics.median(wall),
        "recall_cpu_ms_median": 1000 * statistics.median(cpu),
    }))

asyncio.run(main(int(sys.argv[1])))
"""

COLUMNS = (
    ("ingest_cpu_ms_per_message", "ingest CPU ms/msg"),
    ("ingest_messages_per_s", "ingest msg/s (wall)"),
    ("recall_cpu_ms_median", "recall CPU ms (median)"),
    ("recall_p50_ms", "recall p50 ms (wall)"),
)


def measure(tree: Path, conversations: int) -> dict:
    """One tree's figures, from a fresh process that imports the tree's code."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(conversations)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def load_average() -> str:
    """The 1-minute load average, as the machine reports it."""
    return f"{os.getloadavg()[0]:.1f}"


def main() -> None:
    """Parse the trees and options, alternate the runs, print one line per run."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trees", nargs="+", type=Path, help="source trees to compare")
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None, help="also write the runs here")
    args = parser.parse_args()
    if args.conversations < 1 or args.rounds < 1:
        parser.error("--conversations and --rounds must be at least 1")
    runs = []
    print(f"{'tree':<30} {'round':>5} " + " ".join(f"{t:>24}" for _, t in COLUMNS) + "  load")
    for round_no in range(1, args.rounds + 1):
        for tree in args.trees:
            figures = measure(tree.resolve(), args.conversations)
            runs.append({"tree": str(tree), "round": round_no, **figures})
            cells = " ".join(f"{figures[k]:>24.1f}" for k, _ in COLUMNS)
            print(f"{tree!s:<30} {round_no:>5} {cells}  {load_average()}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
