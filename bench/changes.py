"""State tracking: does recall() know what holds now, and what held when?

Runs the conversations of ``bench._changes_data`` (a subject changes home, job,
partner, pet, favourite food, mood or the drink they switched to one to five times,
or adds pets one by one), the conversations of ``bench._changes_mixed`` (two kinds of
preference switched at different times; a pet ended by its species only while another
stays) and the profiles of ``bench._changes_docs`` (one document that states a history
of homes or jobs) through the default recall(), no LLM. Each
case is its own dataset. Reported per number of changes, and per aspect:

- ``current_first``: present questions whose first relevant source (a message that
  states a value or a fact tied to a period) is from the current period;
- ``right_period``: past and as_of questions whose first relevant source is from
  the period asked about (middle periods included);
- ``answer_right``: offline answers that name the expected value before any other
  value of the conversation (of several pets: that name every pet held then);
- ``superseded_as_current``: present and as_of answers whose first named value is
  one that no longer held.

Period figures need message ids, so a document's questions count only in the
answer figures.

    .venv/bin/python -m bench.changes [--count N] [--documents N] [--mixed N] [--seed S]
        [--json FILE]
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
from bench._changes_docs import generate_documents
from bench._changes_mixed import generate_mixed
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
    now = question.kind in ("present", "as_of")
    if question.answers:  # several values hold at once: every one must be named
        said = {v.lower() for _, v in named}
        right = all(v.lower() in said for v in question.answers)
        held = {v.lower() for v in question.answers}
        stale = now and any(v.lower() not in held for _, v in named if v in values)
        return right, stale
    first = named[0][1]
    right = first.lower() == question.answer.lower()
    stale = now and not right and first in values
    return right, stale


async def ask(engine: RecallEngine, case: Case, question: Question) -> dict:
    """Both recalls of one question: the ranked context and the offline answer."""
    as_of = question.as_of
    context = await engine.recall(question.text, datasets=[case.id], only_context=True, as_of=as_of)
    answer = await engine.recall(question.text, datasets=[case.id], as_of=as_of)
    period = first_relevant(context, case)
    text = getattr(answer[0], "text", "") if answer else ""
    right, stale = judge_answer(text, question, case)
    if case.document is not None:
        period_right = None  # a document has no message ids to tell its periods by
    elif question.answers:  # several values: any source of a value still held then
        period_right = period is not None and period <= question.period
    else:
        period_right = period == question.period
    return {
        "case": case.id,
        "aspect": case.aspect,
        "changes": case.changes,
        "question": question.text,
        "kind": question.kind,
        "topic": question.topic,
        "period": question.period,
        "periods": len(case.values),
        "first_relevant": period,
        "period_right": period_right,
        "answer": text,
        "expected": question.answer,
        "answer_right": right,
        "superseded_as_current": stale,
    }


def summarise(rows: list[dict], by: str = "changes") -> dict:
    """Per number of changes (or aspect, ``by``) and all: the figures, in %, with counts."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[str(row[by])].append(row)
        groups["all"].append(row)

    def pct(items: list[dict], key: str) -> dict:
        items = [r for r in items if r[key] is not None]
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


async def run(count: int, seed: int, data_dir: Path, documents: int = 10, mixed: int = 6) -> dict:
    """Ingest every case, ask every question, return the report."""
    cases = generate(count, seed) + generate_documents(documents, seed + 1)
    cases += generate_mixed(mixed, seed + 2)
    engine = RecallEngine(data_dir)
    try:
        start = time.perf_counter()
        for case in cases:
            item = case.document if case.document is not None else case.conversation
            await engine.remember(item, dataset_name=case.id)
        ingest_s = time.perf_counter() - start
        rows = [await ask(engine, case, q) for case in cases for q in case.questions]
    finally:
        engine.close()
    return {
        "cases": len(cases),
        "questions": len(rows),
        "ingest_s": round(ingest_s, 1),
        "by_changes": summarise(rows),
        "by_aspect": summarise(rows, "aspect"),
        "rows": rows,
    }


def print_report(report: dict) -> None:
    print(f"{report['cases']} cases, {report['questions']} questions")
    keys = ("current_first", "right_period", "right_period_middle", "answer_right")
    for table, label in (("by_changes", "changes"), ("by_aspect", "aspect")):
        header = " ".join(f"{k:>22}" for k in (*keys, "superseded_as_current"))
        print(f"{label:>14} " + header)
        for name, figures in report[table].items():
            cells = [figures[k] for k in (*keys, "superseded_as_current")]
            print(f"{name:>14} " + " ".join(f"{c['pct']!s:>15} (n={c['n']:>3})" for c in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=45, help="conversations (default 45)")
    parser.add_argument("--documents", type=int, default=10, help="profiles (default 10)")
    parser.add_argument(
        "--mixed", type=int, default=6, help="conversations of each mixed shape (default 6)"
    )
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args.count, args.seed, Path(tmp), args.documents, args.mixed))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
