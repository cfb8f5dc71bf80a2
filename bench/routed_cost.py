"""The routed default's cost against GRAPH_COMPLETION's on HotpotQA-100, warm.

``bench.hotpotqa`` times its modes one after the other in a fresh process, so its
first mode also pays what the process computes once (the graph snapshot, per-chunk
memos, a first question's caches), and the routed default is usually that first
mode. Here every question is first asked once routed and once of
``GRAPH_COMPLETION`` untimed; the query-vector cache is then emptied and the
questions embedded again, so the timed routed pass pays its follow-up hops'
embeddings, as a process that never saw those texts does. Then every question is
asked routed, then of ``GRAPH_COMPLETION``, each timed (CPU time of the process, all
threads, and wall time; query vectors cached, ``only_context``, ``top_k`` 10).

    .venv/bin/python -m bench.routed_cost [--store DIR] [--limit N]

Prints p50 and mean CPU ms and p50 wall ms per recall for both, and how many routed
recalls ran the follow-up hop (their rounds stopped at ``max_rounds`` or converged).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench._data import load_hotpotqa, percentile
from bench.hotpotqa import DATASET, TOP_K
from recall_engine import RecallEngine, ResponseGraphEntry, SearchType
from recall_engine.embedding import QUERY_CACHE, embed_query


async def _ask(
    engine: RecallEngine, text: str, mode: SearchType | None
) -> tuple[float, float, str]:
    """One recall: (CPU ms, wall ms, why the rounds stopped)."""
    c0, t0 = time.process_time(), time.perf_counter()
    results = await engine.recall(
        text, mode, datasets=[DATASET], top_k=TOP_K, only_context=True, verbose=True
    )
    cpu, wall = 1000 * (time.process_time() - c0), 1000 * (time.perf_counter() - t0)
    graph = [r for r in results if isinstance(r, ResponseGraphEntry)]
    details = graph[0].metadata.get("retrieval") if graph else None
    stopped = details.get("stopped") if isinstance(details, dict) else None
    return cpu, wall, str(stopped)


async def run(data_dir: Path, limit: int | None) -> dict[str, dict[str, float]]:
    docs, questions = load_hotpotqa()
    questions = questions[:limit] if limit else questions
    engine = RecallEngine(data_dir, graph_extractor="rules")
    if DATASET not in await engine.list_datasets():
        await engine.remember(docs, dataset_name=DATASET)
    for q in questions:
        await _ask(engine, q.text, None)
        await _ask(engine, q.text, SearchType.GRAPH_COMPLETION)
    QUERY_CACHE.clear()
    for q in questions:
        embed_query(engine.embedder, q.text)
    report: dict[str, dict[str, float]] = {}
    for name, mode in (("routed", None), ("GRAPH_COMPLETION", SearchType.GRAPH_COMPLETION)):
        asked = [await _ask(engine, q.text, mode) for q in questions]
        cpu, wall = [a[0] for a in asked], [a[1] for a in asked]
        report[name] = {
            "cpu_ms_p50": percentile(cpu, 0.5),
            "cpu_ms_mean": statistics.fmean(cpu),
            "wall_ms_p50": percentile(wall, 0.5),
            "hops": float(sum(a[2] in ("max_rounds", "converged") for a in asked)),
        }
    engine.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--store", type=Path, default=None, help="keep/reuse the store here")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args.store or Path(tmp), args.limit))
    for name, body in report.items():
        print(
            f"{name:<18} CPU ms p50 {body['cpu_ms_p50']:6.1f} mean {body['cpu_ms_mean']:6.1f}"
            f"   wall ms p50 {body['wall_ms_p50']:6.1f}   hops {body['hops']:.0f}"
        )


if __name__ == "__main__":
    main()
