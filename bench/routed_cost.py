"""The routed default's cost against GRAPH_COMPLETION's on HotpotQA-100, warm.

``bench.hotpotqa`` times its modes one after the other in a fresh process, so its
first mode also pays what the process computes once (the graph snapshot, per-chunk
memos, a first question's caches), and the routed default is usually that first
mode. Here every question is first asked once routed and once of
``GRAPH_COMPLETION`` untimed; the query-vector cache is then emptied and the
questions embedded again (timed: the query embedding's p50, the floor issue 39's
targets add to), so the timed routed pass pays its follow-up hops' embeddings, as a
process that never saw those texts does. Then every question is asked routed, then
of ``GRAPH_COMPLETION``, ``HYBRID_COMPLETION`` and ``CHUNKS``, each timed (CPU time
of the process, all threads, and wall time; query vectors cached, ``only_context``,
``top_k`` 10).

    .venv/bin/python -m bench.routed_cost [--store DIR] [--limit N] [--copies N]

Prints p50 and mean CPU ms and p50 wall ms per recall for each, and how many routed
recalls ran the follow-up hop (their rounds stopped at ``max_rounds`` or converged).
``--copies 2`` asks over the corpus and a renamed copy of it (1,988 paragraphs,
``bench._data.renamed_copies``), the ~2,000-paragraph corpus of issue 39.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench._data import percentile
from bench.hotpotqa import DATASET, TOP_K, corpus
from recall_engine import RecallEngine, ResponseGraphEntry, SearchType
from recall_engine.embedding import QUERY_CACHE, embed_query


async def _ask(
    engine: RecallEngine, text: str, mode: SearchType | None, dataset: str = DATASET
) -> tuple[float, float, str]:
    """One recall: (CPU ms, wall ms, why the rounds stopped)."""
    c0, t0 = time.process_time(), time.perf_counter()
    results = await engine.recall(
        text, mode, datasets=[dataset], top_k=TOP_K, only_context=True, verbose=True
    )
    cpu, wall = 1000 * (time.process_time() - c0), 1000 * (time.perf_counter() - t0)
    graph = [r for r in results if isinstance(r, ResponseGraphEntry)]
    details = graph[0].metadata.get("retrieval") if graph else None
    stopped = details.get("stopped") if isinstance(details, dict) else None
    return cpu, wall, str(stopped)


MODES = (
    ("routed", None),
    ("GRAPH_COMPLETION", SearchType.GRAPH_COMPLETION),
    ("HYBRID_COMPLETION", SearchType.HYBRID_COMPLETION),
    ("CHUNKS", SearchType.CHUNKS),
)


async def run(data_dir: Path, limit: int | None, copies: int = 1) -> dict[str, dict[str, float]]:
    docs, questions, dataset = corpus(copies)
    questions = questions[:limit] if limit else questions
    engine = RecallEngine(data_dir, graph_extractor="rules")
    if dataset not in await engine.list_datasets():
        await engine.remember(docs, dataset_name=dataset)
    for q in questions:
        for _, mode in MODES:
            await _ask(engine, q.text, mode, dataset)
    QUERY_CACHE.clear()
    embedding = []
    for q in questions:
        t0 = time.perf_counter()
        embed_query(engine.embedder, q.text)
        embedding.append(1000 * (time.perf_counter() - t0))
    report: dict[str, dict[str, float]] = {
        "query embedding": {"wall_ms_p50": percentile(embedding, 0.5)}
    }
    for name, mode in MODES:
        asked = [await _ask(engine, q.text, mode, dataset) for q in questions]
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
    parser.add_argument(
        "--copies", type=int, default=1, help="the corpus and N - 1 renamed copies (default 1)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args.store or Path(tmp), args.limit, args.copies))
    for name, body in report.items():
        if "cpu_ms_p50" not in body:
            print(f"{name:<18} wall ms p50 {body['wall_ms_p50']:6.1f}")
            continue
        print(
            f"{name:<18} CPU ms p50 {body['cpu_ms_p50']:6.1f} mean {body['cpu_ms_mean']:6.1f}"
            f"   wall ms p50 {body['wall_ms_p50']:6.1f}   hops {body['hops']:.0f}"
        )


if __name__ == "__main__":
    main()
