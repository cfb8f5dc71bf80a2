"""Counts, totals and complete lists: does BROAD answer them exactly, offline?

Runs the conversations of ``bench._broad_data`` (a subject states pets, cities,
races, books, instruments, kilometres, money spent and gym visits one turn at a
time, with distractors) through ``recall(query_type="BROAD")`` with no LLM. Each
conversation is its own dataset. Reported per topic and overall:

- ``exact``: the answer's value (``recall_engine.llm.answer_records.answer_value`` of
  ``metadata["records"]``) equals the gold: the same count or total, or the same
  set of items (every item, no extra);
- ``evidenced``: every counted item cites a source message whose text names it;
- ``routed_broad``: the router sends the question to BROAD;
- ``default_count_right``: for count and total questions, the routed default's
  answer text (no ``query_type``) starts with the gold number (the baseline).

``--report`` also times GRAPH_REPORT on each LoCoMo dev conversation and on
HotpotQA-100 (``../shared/bench-data``), once cold and once cached, and prints the
two largest communities of each.

    .venv/bin/python -m bench.broad [--count N] [--seed S] [--report] [--store DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench._broad_data import Case, Question, generate
from recall_engine import RecallEngine
from recall_engine.core.records import RecordSet
from recall_engine.llm.answer_records import answer_value


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]", " ", text.lower()).split())


def exact(value: Any, question: Question) -> bool:
    """Whether the answer's value is the gold: the number, or the set of items."""
    if isinstance(question.gold, list):
        return isinstance(value, list) and sorted(map(_fold, value)) == sorted(
            map(_fold, question.gold)
        )
    return isinstance(value, int | float) and abs(float(value) - float(question.gold)) < 1e-6


def evidenced(records: RecordSet, texts: dict[str, str]) -> bool:
    """Every counted record cites a message whose text states its item."""
    for record in records.counted():
        ids = record.source.message_ids or []
        said = " ".join(texts.get(i, "") for i in ids).lower()
        if not ids or record.sentence.lower() not in said:
            return False
    return True


def _first_number(text: str) -> float | None:
    match = re.search(r"\d+(?:\.\d+)?", text.replace(",", ""))
    return float(match.group(0)) if match else None


async def ask(engine: RecallEngine, case: Case, question: Question) -> dict[str, Any]:
    """One question through BROAD and through the routed default."""
    texts = {m.id: m.text for m in case.conversation.messages}
    started = time.perf_counter()
    results = await engine.recall(question.text, query_type="BROAD", datasets=[case.name])
    took = (time.perf_counter() - started) * 1000
    row: dict[str, Any] = {"question": question.text, "topic": question.topic, "ms": took}
    meta = results[0].metadata.get("records") if results else None
    if meta is None:
        row.update(exact=False, evidenced=False, value=None, answer=None)
    else:
        records = RecordSet.model_validate(meta)
        value = answer_value(records)
        row.update(
            exact=exact(value, question),
            evidenced=evidenced(records, texts),
            value=value,
            answer=results[0].text,
        )
    routed = await engine.recall(question.text, datasets=[case.name], verbose=False)
    route = routed[0].metadata.get("route", {}) if routed else {}
    row["routed"] = route.get("search_type")
    row["routed_broad"] = row["routed"] == "BROAD"
    if question.ask in ("count", "total"):
        default = await engine.recall(
            question.text, query_type="GRAPH_COMPLETION", datasets=[case.name]
        )
        number = _first_number(default[0].text) if default else None
        row["default_count_right"] = (
            number is not None and abs(number - float(question.gold)) < 1e-6
        )  # type: ignore[arg-type]
    row["gold"] = question.gold
    return row


async def run_questions(count: int, seed: int, data_dir: Path) -> dict[str, Any]:
    cases = generate(count, seed)
    engine = RecallEngine(data_dir)
    for case in cases:
        await engine.remember(case.conversation, dataset_name=case.name)
    rows = [await ask(engine, case, q) for case in cases for q in case.questions]
    engine.close()
    by_topic: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_topic[row["topic"]].append(row)

    def share(items: list[dict[str, Any]], key: str) -> float | None:
        scored = [r[key] for r in items if key in r]
        return round(100 * sum(scored) / len(scored), 1) if scored else None

    summary = {
        topic: {
            "n": len(items),
            "exact": share(items, "exact"),
            "evidenced": share(items, "evidenced"),
            "routed_broad": share(items, "routed_broad"),
            "default_count_right": share(items, "default_count_right"),
        }
        for topic, items in sorted(by_topic.items())
    }
    summary["all"] = {
        "n": len(rows),
        "exact": share(rows, "exact"),
        "evidenced": share(rows, "evidenced"),
        "routed_broad": share(rows, "routed_broad"),
        "default_count_right": share(rows, "default_count_right"),
    }
    ms = sorted(r["ms"] for r in rows)
    return {
        "summary": summary,
        "p50_ms": ms[len(ms) // 2],
        "misses": [r for r in rows if not r["exact"]],
    }


async def run_reports(store: Path) -> dict[str, Any]:
    """GRAPH_REPORT on each LoCoMo dev conversation and on HotpotQA-100."""
    from bench._data import load_hotpotqa, load_locomo

    engine = RecallEngine(store)
    known = await engine.list_datasets()
    for sample in load_locomo():
        if sample.sample_id not in known:
            await engine.remember(sample.conversation, dataset_name=sample.sample_id)
    if "hotpotqa" not in known:
        docs, _ = load_hotpotqa()
        await engine.remember(docs, dataset_name="hotpotqa")
    out: dict[str, Any] = {}
    for name in [s.sample_id for s in load_locomo()] + ["hotpotqa"]:
        timings = []
        for _ in range(2):
            started = time.perf_counter()
            results = await engine.recall(
                "Give me an overview of this memory", query_type="GRAPH_REPORT", datasets=[name]
            )
            timings.append(round((time.perf_counter() - started) * 1000, 1))
        report = results[0].metadata["graph_report"]
        out[name] = {
            "cold_ms": timings[0],
            "cached_ms": timings[1],
            "entities": report["entities"],
            "relations": report["relations"],
            "hubs": [h["name"] for h in report["hubs"][:5]],
            "communities": [c["about"] for c in report["communities"][:2]],
        }
    engine.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--report", action="store_true", help="also time GRAPH_REPORT")
    parser.add_argument("--store", type=Path, default=None, help="keeps the report's ingest")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run_questions(args.count, args.seed, Path(tmp) / "data"))
        if args.report:
            report["graph_report"] = asyncio.run(run_reports(args.store or Path(tmp) / "reports"))
    for topic, row in report["summary"].items():
        print(f"{topic:14s} " + "  ".join(f"{k}={v}" for k, v in row.items()))
    print(f"BROAD p50 {report['p50_ms']:.1f} ms")
    for miss in report["misses"]:
        print(f"MISS {miss['question']!r}: gold {miss['gold']} got {miss['value']}")
    for name, row in report.get("graph_report", {}).items():
        print(f"{name}: cold {row['cold_ms']} ms, cached {row['cached_ms']} ms, hubs {row['hubs']}")
        for about in row["communities"]:
            print(f"    {about}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
