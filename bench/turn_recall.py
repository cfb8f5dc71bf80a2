"""What an agent pays per turn: remember one message, then recall, on LoCoMo dev.

The first ``--history`` turns of one LoCoMo dev conversation are remembered at once
(the memory so far); then each of the next ``--turns`` turns is remembered on its
own, as an agent does after every message, and right after each write one of the
conversation's questions is asked (query vector cached, ``only_context``), then the
same question again. Separately, every question is asked once more in a fresh
engine over the same store with the query cache emptied before each (a question
never asked before, its embedding included). Per mode, p50 and p95 in ms:

- ``write``: the one-message ``remember``;
- ``after write``: the first recall after it (what every write invalidates is read
  again: facts, chunk validity, the graph snapshot);
- ``again``: the same recall once more (all caches warm);
- ``new question``: a first-time question, embedding included.

    .venv/bin/python -m bench.turn_recall [--conversation 0] [--history 300]
        [--turns 20] [--modes CHUNKS,GRAPH_COMPLETION,routed] [--json FILE]

Each mode runs on its own copy of the same store, so every mode sees the same
writes. Timings move with the machine's load: compare two trees in one session,
alternated (``PYTHONPATH=<tree>``), not across sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._data import Sample, load_locomo, percentile
from recall_engine import Conversation, RecallEngine, SearchType
from recall_engine.embedding import QUERY_CACHE

ROUTED = "routed"
TOP_K = 10


def _mode(name: str) -> SearchType | None:
    return None if name == ROUTED else SearchType(name)


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(1000 * percentile(values, 0.5), 2),
        "p95": round(1000 * percentile(values, 0.95), 2),
    }


async def _timed(work: Any) -> float:
    started = time.perf_counter()
    await work
    return time.perf_counter() - started


async def run_mode(
    store: Path, sample: Sample, mode: str, history: int, turns: int
) -> dict[str, Any]:
    """One mode on its own copy of ``store`` (which holds the first ``history`` turns)."""
    questions = [q.text for q in sample.questions]
    later = sample.conversation.messages[history : history + turns]
    query_type, dataset = _mode(mode), sample.sample_id
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(store, copy)

        def ask(engine: RecallEngine, text: str) -> Any:
            return engine.recall(
                text, query_type, datasets=[dataset], top_k=TOP_K, only_context=True
            )

        async with RecallEngine(copy, graph_extractor="rules") as engine:
            for text in questions[:turns]:  # vectors cached, the store's caches built
                await ask(engine, text)
            writes, after, again = [], [], []
            for i, message in enumerate(later):
                text = questions[i % len(questions)]
                one = Conversation(messages=[message])
                writes.append(await _timed(engine.remember(one, dataset_name=dataset)))
                after.append(await _timed(ask(engine, text)))
                again.append(await _timed(ask(engine, text)))
        async with RecallEngine(copy, graph_extractor="rules") as engine:
            fresh = []
            for text in questions:
                QUERY_CACHE.clear()
                fresh.append(await _timed(ask(engine, text)))
    return {
        "write": _ms(writes),
        "after write": _ms(after),
        "again": _ms(again),
        "new question": _ms(fresh[1:]),  # the first opens the store
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    sample = load_locomo()[args.conversation]
    history = min(args.history, len(sample.conversation.messages) - args.turns)
    report: dict[str, Any] = {
        "conversation": sample.sample_id,
        "history_turns": history,
        "turns": args.turns,
        "questions": len(sample.questions),
        "modes": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        async with RecallEngine(store, graph_extractor="rules") as engine:
            past = Conversation(messages=sample.conversation.messages[:history])
            await engine.remember(past, dataset_name=sample.sample_id)
        for mode in args.modes.split(","):
            report["modes"][mode] = await run_mode(store, sample, mode, history, args.turns)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversation", type=int, default=0, help="LoCoMo dev sample index")
    parser.add_argument("--history", type=int, default=300, help="turns remembered first")
    parser.add_argument("--turns", type=int, default=20, help="turns then remembered one by one")
    parser.add_argument("--modes", default=f"CHUNKS,GRAPH_COMPLETION,{ROUTED}")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    print(
        f"LoCoMo {report['conversation']}: {report['history_turns']} turns remembered, then "
        f"{report['turns']} one at a time; {report['questions']} questions (ms p50 / p95)"
    )
    columns = ("write", "after write", "again", "new question")
    print(f"{'mode':<18}" + "".join(f"{k:>20}" for k in columns))
    for mode, body in report["modes"].items():
        cells = "".join(f"{body[k]['p50']:>11.1f} / {body[k]['p95']:<6.1f}" for k in body)
        print(f"{mode:<18}{cells}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
