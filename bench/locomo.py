"""LoCoMo dev retrieval quality and recall latency, for every retriever that
returns ranked provenance.

Each conversation is its own dataset; each question is asked against its own
conversation only, with ``only_context=True``. Units are dialogue turn ids (the
``message_ids`` of the results' ``metadata["sources"]``, in rank order). Budget
recall cuts that list where the turns' own text passes 2,000 tokens. Categories
1-4 are the headline; each category is reported, category 5 (adversarial) apart.
Every question is embedded once before any mode runs (the engine caches query
vectors per process; a question naming a speaker with its rest, in the same model
pass recall() makes), and that embedding's p50/p95 is reported on its own line;
each mode's latency is then recall() wall time without the embedding, the same
for every mode.
Each mode also reports its mean CPU time per recall (the process's, every thread):
unlike wall time, it stays comparable when the machine is loaded.

    .venv/bin/python -m bench.locomo [--modes CHUNKS,HYBRID_COMPLETION] [--limit N]
        [--store DIR] [--json FILE] [--top-k K]

``--top-k`` (default 25) is every recall's ``top_k``; the metrics look at the
first 5, 10 and 25 units whatever it is, so a head that does not depend on
``top_k`` gives the same recall@10 at ``--top-k 10`` as at 25.

Without ``--modes`` every registered retriever that needs no LLM runs; one that
fails or returns no provenance is reported as skipped. ``--store DIR`` keeps the
ingested conversations there and reuses them on the next run.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench._cli import quality_main
from bench._data import (
    CATEGORY_NAMES,
    Question,
    cut_to_budget,
    load_locomo,
    mean_scores,
    percentile,
    ranked_units,
    score,
)
from recall_engine import RecallEngine, SearchType
from recall_engine.embedding import embed_query
from recall_engine.embedding.parts import embed_query_part
from retrievers.content_query import rest_spans

HEADLINE = ("recall@5", "recall@10", "recall@25", "full@10", "mrr@10", "recall@budget")
TOP_K = 25


def default_modes() -> list[SearchType]:
    """Every registered retriever that can run without an LLM."""
    from retrievers import RETRIEVERS

    return [t for t, cls in RETRIEVERS.items() if not cls.needs_llm]


async def ingest(engine: RecallEngine, samples: list, report: dict) -> None:
    """Remember each conversation as its own dataset (skipped when the store has it)."""
    known = await engine.list_datasets()
    todo = [s for s in samples if s.sample_id not in known]
    graph = {"entities": 0, "relations": 0, "events": 0, "extract_s": 0.0}
    start = time.perf_counter()
    for sample in todo:
        stored = await engine.remember(sample.conversation, dataset_name=sample.sample_id)
        graph["entities"] += stored.entity_count
        graph["relations"] += stored.relation_count
        graph["events"] += stored.event_count
        graph["extract_s"] += stored.timings.get("extract_s", 0.0)
    ingest_s = time.perf_counter() - start
    n_new = sum(len(s.conversation.messages) for s in todo)
    report["ingested_messages"] = n_new
    report["ingest_messages_per_s"] = n_new / ingest_s if n_new else None
    report["graph"] = graph


async def evaluate(
    engine: RecallEngine, mode: SearchType, samples: list, cost: dict, *, top_k: int = TOP_K
) -> dict:
    """One retriever over every question: scores per category and latency."""
    per_cat: dict[int, list[dict[str, float]]] = {}
    questions: list[dict[str, object]] = []
    latencies: list[float] = []
    cpu: list[float] = []
    with_sources = 0
    for sample in samples:
        for q in sample.questions:
            t0, c0 = time.perf_counter(), time.process_time()
            results = await engine.recall(
                q.text, mode, datasets=[sample.sample_id], top_k=top_k, only_context=True
            )
            latencies.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            ranked = ranked_units(results, lambda s: s["message_ids"])
            with_sources += bool(ranked)
            budget = cut_to_budget(ranked, lambda u: cost.get(u, 0))
            per_cat.setdefault(q.category, []).append(score(q.gold, ranked, budget))
            questions.append(question_row(sample.sample_id, q, ranked))
    if not with_sources:
        return {"skipped": "no result carried provenance"}
    headline = [row for cat in (1, 2, 3, 4) for row in per_cat.get(cat, [])]
    return {
        "cat1-4": mean_scores(headline),
        "questions_cat1-4": len(headline),
        **{f"cat{c} {CATEGORY_NAMES[c]}": mean_scores(per_cat[c]) for c in sorted(per_cat)},
        "latency_ms_p50": 1000 * percentile(latencies, 0.5),
        "latency_ms_p95": 1000 * percentile(latencies, 0.95),
        "cpu_ms_mean": 1000 * statistics.fmean(cpu),
        "questions": questions,
    }


def question_row(sample_id: str, question: Question, ranked: list[str]) -> dict[str, object]:
    """One question's line of the JSON report: where each gold unit ranked (1-based,
    None when not returned), so two runs can be compared question by question."""
    place = {unit: i + 1 for i, unit in enumerate(ranked)}
    return {
        "conversation": sample_id,
        "category": question.category,
        "question": question.text,
        "gold_ranks": {g: place.get(g) for g in question.gold},
    }


def warm_query_cache(engine: RecallEngine, samples: list) -> dict:
    """Embed every question once (the per-process caches keep it), with its rest when
    it names a speaker (``embedding.parts``: recall() embeds both in that one pass),
    so no mode's latency includes it; return the embedding's own latency."""
    latencies = []
    for sample in samples:
        speakers = {m.speaker for m in sample.conversation.messages if m.speaker}
        for q in sample.questions:
            t0 = time.perf_counter()
            spans = rest_spans(q.text, speakers)
            if spans is None:
                embed_query(engine.embedder, q.text)
            else:
                embed_query_part(engine.embedder, q.text, spans)
            latencies.append(time.perf_counter() - t0)
    return {
        "latency_ms_p50": 1000 * percentile(latencies, 0.5),
        "latency_ms_p95": 1000 * percentile(latencies, 0.95),
    }


async def run(
    modes: list[SearchType],
    limit: int | None,
    data_dir: Path,
    graph_extractor: str = "rules",
    *,
    top_k: int = TOP_K,
) -> dict:
    samples = load_locomo()
    if limit:
        samples = samples[:limit]
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    engine.embedder.embed(["warm up"])  # model load is not ingest time
    report: dict = {
        "conversations": len(samples),
        "messages": sum(len(s.conversation.messages) for s in samples),
        "extractor": graph_extractor,
        "top_k": top_k,
        "modes": {},
    }
    await ingest(engine, samples, report)
    # A turn's cost in the budget: its text as a chunk shows it ("[time] speaker: text").
    cost = {
        m.id: len(f"[date time] {m.speaker}: {m.text}".split())
        for s in samples
        for m in s.conversation.messages
        if m.id
    }
    report["embedding"] = warm_query_cache(engine, samples)
    for mode in modes:
        try:
            report["modes"][mode.value] = await evaluate(engine, mode, samples, cost, top_k=top_k)
        except Exception as exc:  # one retriever's failure must not hide the others' figures
            report["modes"][mode.value] = {"skipped": f"{type(exc).__name__}: {exc}"[:200]}
    engine.close()
    return report


def print_report(report: dict) -> None:
    rate = report["ingest_messages_per_s"]
    print(
        f"LoCoMo dev: {report['conversations']} conversations, {report['messages']} messages"
        + (f", ingest {rate:.0f} messages/s" if rate else " (store reused)")
        + f", top_k {report.get('top_k', TOP_K)}"
    )
    graph = report["graph"]
    if report["ingested_messages"]:
        print(
            f"graph ({report['extractor']}): {graph['entities']} entities, "
            f"{graph['relations']} relations, {graph['events']} events; "
            f"extraction {graph['extract_s']:.1f} s (overlapped with embedding)"
        )
    embedding = report["embedding"]
    print(
        f"query embedding (once per question, cached for every mode): p50 "
        f"{embedding['latency_ms_p50']:.1f} ms, p95 {embedding['latency_ms_p95']:.1f} ms"
    )
    print(f"{'mode':<20} {'slice':<20}" + "".join(f"{k:>14}" for k in HEADLINE))
    for mode, body in report["modes"].items():
        if "skipped" in body:
            print(f"{mode:<20} skipped: {body['skipped']}")
            continue
        for slice_name, values in body.items():
            if not isinstance(values, dict) or not values:
                continue
            print(f"{mode:<20} {slice_name:<20}" + "".join(f"{values[k]:>14.1f}" for k in HEADLINE))
        print(
            f"{mode:<20} latency p50 {body['latency_ms_p50']:.1f} ms, "
            f"p95 {body['latency_ms_p95']:.1f} ms, CPU {body.get('cpu_ms_mean', 0.0):.1f} ms/query "
            f"({body['questions_cat1-4']} questions cat 1-4)"
        )


def main() -> None:
    quality_main(
        __doc__,
        run,
        print_report,
        default_modes,
        limit_help="only the first N conversations",
        top_k=TOP_K,
    )


if __name__ == "__main__":
    main()
