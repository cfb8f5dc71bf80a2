"""Every ``full_recall`` answer on bench.server's corpus, dumped to compare two versions.

A change meant to make the tenant API cheaper must not change what it returns.
This ingests the LoCoMo dev conversations as ``bench.server`` does (one source per
turn, one sub-tenant per conversation) into ``--data-dir`` (reused when it holds
them), asks every question in fast mode (and a few hundred with other options:
``max_results`` 25, alpha ``"auto"`` and 0.8, recency, graph context, thinking
mode), and writes each whole ``RetrievalResult`` as a JSON line. ``--diff A B``
compares two dumps line by line. Process CPU per call (median) is printed as it
goes; questions first asked in the fast pass are embedded there, later passes
find their vectors cached.

    .venv/bin/python -m bench.recall_dump --data-dir DIR --out before.jsonl
    .venv/bin/python -m bench.recall_dump --diff before.jsonl after.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.server import TENANT, ingest_tenant

# (name, full_recall options, how many questions: None = all)
PASSES: list[tuple[str, dict[str, Any], int | None]] = [
    ("fast", {"mode": "fast", "max_results": 10}, None),
    ("fast25", {"mode": "fast", "max_results": 25}, 300),
    ("auto", {"mode": "fast", "max_results": 10, "alpha": "auto"}, 300),
    ("alpha0.8", {"mode": "fast", "max_results": 10, "alpha": 0.8}, 300),
    ("recency", {"mode": "fast", "max_results": 10, "recency_bias": 0.5}, 300),
    ("graph_context", {"mode": "fast", "max_results": 10, "graph_context": True}, 100),
    ("thinking", {"mode": "thinking", "max_results": 10}, 100),
]


async def dump(data_dir: Path, out: Path) -> None:
    """Ingest (or reuse) the corpus, then write every pass's results to ``out``.
    The searches run on a copy of ``data_dir``, so it stays as it was."""
    from recall_engine import RecallEngine

    questions = [json.loads(q) for q in (await ingest_tenant(data_dir, 5))[0]]
    with tempfile.TemporaryDirectory(prefix="recall-dump-") as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(data_dir, copy)
        async with RecallEngine(copy) as engine:
            with out.open("w", encoding="utf-8") as sink:
                for name, options, limit in PASSES:
                    cpu: list[float] = []
                    for n, (sample, question) in enumerate(questions[:limit]):
                        started = time.process_time()
                        result = await engine.full_recall(
                            tenant_id=TENANT, sub_tenant_id=sample, query=question, **options
                        )
                        cpu.append(time.process_time() - started)
                        line = {"pass": name, "n": n, "result": result.model_dump(mode="json")}
                        sink.write(json.dumps(line) + "\n")
                    median = 1000 * statistics.median(cpu)
                    print(f"{name}: {len(cpu)} calls, CPU per call median {median:.2f} ms")


def diff(a: Path, b: Path) -> int:
    """How many results differ between two dumps (each named, up to five)."""
    left = a.read_text(encoding="utf-8").splitlines()
    right = b.read_text(encoding="utf-8").splitlines()
    if len(left) != len(right):
        print(f"{a} has {len(left)} results, {b} {len(right)}")
        return max(len(left), len(right))
    differ = 0
    for x, y in zip(left, right, strict=True):
        if x != y:
            differ += 1
            if differ <= 5:
                row = json.loads(x)
                print(f"differs: pass {row['pass']}, question {row['n']}")
    print(f"{len(left)} results, {differ} differ")
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, help="the corpus (ingested when empty)")
    parser.add_argument("--out", type=Path, help="the dump to write")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.diff:
        return 1 if diff(*args.diff) else 0
    if args.data_dir is None or args.out is None:
        parser.error("give --data-dir and --out, or --diff A B")
    asyncio.run(dump(args.data_dir, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
