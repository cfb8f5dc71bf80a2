"""LoCoMo dev retrieval quality, ingest throughput and recall latency.

Each conversation is its own dataset; each question is asked against its own
conversation only. Units are dialogue turn ids (the ``message_ids`` provenance
of the returned results, in rank order).

    .venv/bin/python -m bench.locomo [--modes CHUNKS,CHUNKS_LEXICAL] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from bench._data import CATEGORY_NAMES, load_locomo, mean_scores, percentile, score, units_in_budget
from recall_engine import RecallEngine, SearchType

HEADLINE = ("recall@5", "recall@10", "recall@25", "full@10", "mrr@10", "recall@budget")


async def run(
    modes: list[SearchType], limit: int | None, data_dir: Path, graph_extractor: str = "rules"
) -> dict:
    samples = load_locomo()
    if limit:
        samples = samples[:limit]
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    engine.embedder.embed(["warm up"])  # model load is not ingest time
    n_messages = sum(len(s.conversation.messages) for s in samples)
    graph = {"extractor": graph_extractor, "entities": 0, "relations": 0, "events": 0}
    extract_s = 0.0
    start = time.perf_counter()
    for sample in samples:
        stored = await engine.remember(sample.conversation, dataset_name=sample.sample_id)
        graph["entities"] += stored.entity_count
        graph["relations"] += stored.relation_count
        graph["events"] += stored.event_count
        extract_s += stored.timings.get("extract_s", 0.0)
    ingest_s = time.perf_counter() - start
    report: dict = {
        "conversations": len(samples),
        "messages": n_messages,
        "ingest_messages_per_s": n_messages / ingest_s,
        "graph": {**graph, "extract_s": extract_s},
        "modes": {},
    }
    for mode in modes:
        per_cat: dict[int, list[dict[str, float]]] = {}
        latencies = []
        for sample in samples:
            for q in sample.questions:
                t0 = time.perf_counter()
                results = await engine.recall(
                    q.text, mode, datasets=[sample.sample_id], top_k=25, only_context=True
                )
                latencies.append(time.perf_counter() - t0)
                ranked: list[str] = []
                for r in results:
                    for source in r.metadata.get("sources", []):
                        for unit in source["message_ids"]:
                            if unit not in ranked:
                                ranked.append(unit)
                budget = units_in_budget(
                    [
                        (r.text, [u for s in r.metadata["sources"] for u in s["message_ids"]])
                        for r in results
                    ]
                )
                per_cat.setdefault(q.category, []).append(score(q.gold, ranked, budget))
        headline = [row for cat in (1, 2, 3, 4) for row in per_cat.get(cat, [])]
        report["modes"][mode.value] = {
            "cat1-4": mean_scores(headline),
            "questions_cat1-4": len(headline),
            **{
                f"cat{c} {CATEGORY_NAMES[c]}": mean_scores(per_cat.get(c, []))
                for c in sorted(per_cat)
            },
            "latency_ms_p50": 1000 * percentile(latencies, 0.5),
            "latency_ms_p95": 1000 * percentile(latencies, 0.95),
        }
    engine.close()
    return report


def print_report(report: dict) -> None:
    print(
        f"LoCoMo dev: {report['conversations']} conversations, {report['messages']} messages, "
        f"ingest {report['ingest_messages_per_s']:.0f} messages/s"
    )
    graph = report["graph"]
    print(
        f"graph ({graph['extractor']}): {graph['entities']} entities, {graph['relations']} "
        f"relations, {graph['events']} events; extraction {graph['extract_s']:.1f} s "
        "(overlapped with embedding)"
    )
    header = f"{'mode':<16} {'slice':<22}" + "".join(f"{k:>14}" for k in HEADLINE)
    print(header)
    for mode, body in report["modes"].items():
        for slice_name, values in body.items():
            if not isinstance(values, dict) or not values:
                continue
            print(f"{mode:<16} {slice_name:<22}" + "".join(f"{values[k]:>14.1f}" for k in HEADLINE))
        print(
            f"{mode:<16} latency p50 {body['latency_ms_p50']:.1f} ms, "
            f"p95 {body['latency_ms_p95']:.1f} ms ({body['questions_cat1-4']} questions cat 1-4)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modes", default="CHUNKS,CHUNKS_LEXICAL")
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--graph-extractor", choices=["rules", "llm", "none"], default="rules")
    args = parser.parse_args()
    modes = [SearchType(m.strip()) for m in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(modes, args.limit, Path(tmp), args.graph_extractor))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
