"""State tracking: does recall() know what holds now, and what held when?

Runs the conversations of ``bench._changes_data`` (a subject changes home, job,
partner, pet, favourite food or mood one to five times) through the default
recall(), no LLM. Each conversation is its own dataset. Reported per number of
changes:

- ``current_first``: present questions whose first relevant source (a message that
  states a value or a fact tied to a period) is from the current period;
- ``right_period``: past and as_of questions whose first relevant source is from
  the period asked about (middle periods included);
- ``answer_right``: offline answers that name the expected value before any other
  value of the conversation;
- ``superseded_as_current``: present and as_of answers whose first named value is
  one that no longer held.

    .venv/bin/python -m bench.changes [--count N] [--seed S] [--json FILE]
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

from bench._changes_data import TIED, Case, Question, generate
from recall_engine import RecallEngine


def first_relevant(results: list, case: Case) -> int | None:
    """The period of the first source that states a value or a tied fact."""
    for result in results:
        for source in result.metadata.get("sources", []):
            for mid in source.get("message_ids") or ():
                if mid in case.message_period:
                    return case.message_period[mid]
    return None


def _named(text: str, values: list[str]) -> list[tuple[int, str]]:
    lowered = text.lower()
    found = []
    for value in values:
        match = re.search(rf"\b{re.escape(value.lower())}\b", lowered)
        if match:
            found.append((match.start(), value))
    return sorted(found)


def judge_answer(text: str, question: Question, case: Case) -> tuple[bool, bool]:
    """(right, superseded shown as current) for one offline answer."""
    pool = TIED["neighbour"] + TIED["cafe"] if question.topic == "tied" else []
    values = [v.split(" named ")[-1] for v in case.values] + pool
    named = _named(text, values)
    if not named:
        return False, False
    first = named[0][1]
    right = first.lower() == question.answer.lower()
    stale = question.kind in ("present", "as_of") and not right and first in values
    return right, stale


async def ask(engine: RecallEngine, case: Case, question: Question) -> dict:
    """Both recalls of one question: the ranked context and the offline answer."""
    extra = {"as_of": question.as_of} if question.as_of is not None else {}
    context = await engine.recall(question.text, datasets=[case.id], only_context=True, **extra)
    answer = await engine.recall(question.text, datasets=[case.id], **extra)
    period = first_relevant(context, case)
    text = answer[0].text if answer else ""
    right, stale = judge_answer(text, question, case)
    return {
        "case": case.id,
        "changes": case.changes,
        "question": question.text,
        "kind": question.kind,
        "topic": question.topic,
        "period": question.period,
        "periods": len(case.values),
        "first_relevant": period,
        "period_right": period == question.period,
        "answer": text,
        "expected": question.answer,
        "answer_right": right,
        "superseded_as_current": stale,
    }


def summarise(rows: list[dict]) -> dict:
    """Per number of changes (and all): the four figures, in %, with counts."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[str(row["changes"])].append(row)
        groups["all"].append(row)

    def pct(items: list[dict], key: str) -> dict:
        hits = sum(1 for r in items if r[key])
        return {"pct": round(100 * hits / len(items), 1) if items else None, "n": len(items)}

    out = {}
    for name, items in sorted(groups.items()):
        present = [r for r in items if r["kind"] == "present"]
        dated = [r for r in items if r["kind"] != "present"]
        middle = [r for r in dated if 0 < r["period"] < r["periods"] - 1]
        now = [r for r in items if r["kind"] in ("present", "as_of")]
        out[name] = {
            "current_first": pct(present, "period_right"),
            "right_period": pct(dated, "period_right"),
            "right_period_middle": pct(middle, "period_right"),
            "answer_right": pct(items, "answer_right"),
            "superseded_as_current": pct(now, "superseded_as_current"),
        }
    return out


async def run(count: int, seed: int, data_dir: Path) -> dict:
    """Ingest every case, ask every question, return the report."""
    cases = generate(count, seed)
    engine = RecallEngine(data_dir)
    try:
        start = time.perf_counter()
        for case in cases:
            await engine.remember(case.conversation, dataset_name=case.id)
        ingest_s = time.perf_counter() - start
        rows = [await ask(engine, case, q) for case in cases for q in case.questions]
    finally:
        engine.close()
    return {
        "cases": len(cases),
        "questions": len(rows),
        "ingest_s": round(ingest_s, 1),
        "by_changes": summarise(rows),
        "rows": rows,
    }


def print_report(report: dict) -> None:
    print(f"{report['cases']} conversations, {report['questions']} questions")
    keys = ("current_first", "right_period", "right_period_middle", "answer_right")
    print(f"{'changes':>8} " + " ".join(f"{k:>22}" for k in (*keys, "superseded_as_current")))
    for name, figures in report["by_changes"].items():
        cells = [figures[k] for k in (*keys, "superseded_as_current")]
        print(f"{name:>8} " + " ".join(f"{c['pct']!s:>15} (n={c['n']:>3})" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=45, help="conversations (default 45)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args.count, args.seed, Path(tmp)))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
