"""Every GRAPH_COMPLETION answer on LoCoMo dev, dumped to compare two versions.

A change meant to make the graph search cheaper must not change what it returns.
For every LoCoMo dev question (``bench.locomo``'s store, each question asked
against its own conversation, ``only_context=True``, ``top_k`` 25) this writes
three JSON lines: the whole result of an explicit GRAPH_COMPLETION, the whole
result of the routed default (no ``query_type``: GRAPH_COMPLETION with a
follow-up hop for most questions), and the hits of ``graph_search`` itself with
their scores and its details (which the results do not show), its timing left
out. ``--diff A B`` compares two dumps line by line. The searches run on a copy
of ``--store``, so it stays as it was; process CPU per call (median) is printed.

    .venv/bin/python -m bench.graph_dump --store DIR --out before.jsonl
    .venv/bin/python -m bench.graph_dump --diff before.jsonl after.jsonl
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

from bench._data import load_locomo
from bench.recall_dump import diff as diff_lines
from recall_engine import RecallEngine, SearchType
from recall_engine.embedding import embed_query
from recall_engine.read.store_reader import StoreReader
from retrievers.graph_search import GraphSearchConfig, graph_search

TOP_K = 25


def _search_line(result: Any) -> dict[str, Any]:
    """A graph search's hits (kind, id, score) and details, without its timing."""
    details = {k: v for k, v in result.details.items() if k != "ms"}
    hits = [[h.kind, getattr(h, "chunk_id", None) or h.id, h.score] for h in result.hits]
    return {"hits": hits, "distances": result.distances, "details": details}


async def dump(store_dir: Path, out: Path, limit: int | None) -> None:
    """Write the three lines of every question of the first ``limit`` conversations."""
    samples = load_locomo()[:limit]
    with tempfile.TemporaryDirectory(prefix="graph-dump-") as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(store_dir, copy)
        async with RecallEngine(copy) as engine:
            store = engine.store()
            dataset_of = {name: i for i, name in store.datasets().items()}
            cpu: dict[str, list[float]] = {"graph": [], "routed": [], "search": []}
            with out.open("w", encoding="utf-8") as sink:
                for sample in samples:
                    read = StoreReader(store, [dataset_of[sample.sample_id]])
                    for n, question in enumerate(sample.questions):
                        where = {"sample": sample.sample_id, "n": n}
                        for name, query_type in (
                            ("graph", SearchType.GRAPH_COMPLETION),
                            ("routed", None),
                        ):
                            started = time.process_time()
                            results = await engine.recall(
                                question.text,
                                query_type,
                                datasets=[sample.sample_id],
                                top_k=TOP_K,
                                only_context=True,
                            )
                            cpu[name].append(time.process_time() - started)
                            body = [r.model_dump(mode="json") for r in results]
                            sink.write(json.dumps({"pass": name, **where, "result": body}) + "\n")
                        vector = embed_query(engine.embedder, question.text)
                        started = time.process_time()
                        found = await graph_search(
                            question.text, vector, read, GraphSearchConfig(), top_k=TOP_K
                        )
                        cpu["search"].append(time.process_time() - started)
                        line = {"pass": "search", **where, "result": _search_line(found)}
                        sink.write(json.dumps(line) + "\n")
            for name, spent in cpu.items():
                median = 1000 * statistics.median(spent)
                print(f"{name}: {len(spent)} calls, CPU per call median {median:.2f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a bench.locomo store (--store there)")
    parser.add_argument("--out", type=Path, help="the dump to write")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.diff:
        return 1 if diff_lines(*args.diff) else 0
    if args.store is None or args.out is None:
        parser.error("give --store and --out, or --diff A B")
    asyncio.run(dump(args.store, args.out, args.limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
