"""What an agent pays per turn: remember one memory, then recall.

On LoCoMo dev (default), the first ``--history`` turns of one conversation are
remembered at once (the memory so far); then each of the next ``--turns`` turns is
remembered on its own, as an agent does after every message. With ``--corpus
hotpotqa``, the memory so far is HotpotQA-100 and a renamed copy of it (1,988
paragraphs, ``bench.hotpotqa.corpus``; ``--store DIR`` keeps it between runs) and
each write is one paragraph of a further renamed copy (names the store has never
seen). Right after each write one of the questions is asked (query vector cached,
``only_context``), then the same question again. Separately, every question is
asked once more in a fresh engine over the same store with the query cache emptied
before each (a question never asked before, its embedding included). Per mode, p50
and p95 in ms:

- ``write``: the one-memory ``remember``;
- ``after write``: the first recall after it (what a write changes is read again:
  facts, chunk validity, the graph snapshot's new part);
- ``again``: the same recall once more (all caches warm);
- ``new question``: a first-time question, embedding included.

    .venv/bin/python -m bench.turn_recall [--corpus locomo|hotpotqa] [--store DIR]
        [--conversation 0] [--history 300] [--turns 20]
        [--modes CHUNKS,GRAPH_COMPLETION,routed] [--json FILE]

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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._data import load_hotpotqa, load_locomo, percentile, renamed_copies
from bench.hotpotqa import corpus
from recall_engine import Conversation, Document, RecallEngine, SearchType
from recall_engine.embedding import QUERY_CACHE

ROUTED = "routed"
TOP_K = 10


@dataclass(frozen=True)
class Turns:
    """A memory so far (a store holding ``dataset``), the writes that follow it, one
    memory each, and the questions asked."""

    dataset: str
    writes: Sequence[Conversation | Document]
    questions: Sequence[str]


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


async def run_mode(store: Path, turns: Turns, mode: str) -> dict[str, Any]:
    """One mode on its own copy of ``store`` (which holds the memory so far)."""
    questions, query_type = list(turns.questions), _mode(mode)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "store"
        shutil.copytree(store, copy)

        def ask(engine: RecallEngine, text: str) -> Any:
            return engine.recall(
                text, query_type, datasets=[turns.dataset], top_k=TOP_K, only_context=True
            )

        async with RecallEngine(copy, graph_extractor="rules") as engine:
            for text in questions[: len(turns.writes)]:  # vectors cached, caches built
                await ask(engine, text)
            writes, after, again = [], [], []
            for i, memory in enumerate(turns.writes):
                text = questions[i % len(questions)]
                writes.append(await _timed(engine.remember(memory, dataset_name=turns.dataset)))
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


async def _locomo(args: argparse.Namespace, store: Path, report: dict[str, Any]) -> Turns:
    sample = load_locomo()[args.conversation]
    history = min(args.history, len(sample.conversation.messages) - args.turns)
    messages = sample.conversation.messages
    report.update(conversation=sample.sample_id, history_turns=history)
    async with RecallEngine(store, graph_extractor="rules") as engine:
        past = Conversation(messages=messages[:history])
        await engine.remember(past, dataset_name=sample.sample_id)
    return Turns(
        dataset=sample.sample_id,
        writes=[Conversation(messages=[m]) for m in messages[history : history + args.turns]],
        questions=[q.text for q in sample.questions],
    )


async def _hotpotqa(args: argparse.Namespace, store: Path, report: dict[str, Any]) -> Turns:
    docs, questions, dataset = corpus(2)
    new = renamed_copies(load_hotpotqa()[0], 3)[len(docs) :]  # a third copy's paragraphs
    report.update(paragraphs=len(docs))
    async with RecallEngine(store, graph_extractor="rules") as engine:
        if dataset not in await engine.list_datasets():
            await engine.remember(docs, dataset_name=dataset)
    return Turns(dataset=dataset, writes=new[: args.turns], questions=[q.text for q in questions])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"corpus": args.corpus, "turns": args.turns, "modes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or Path(tmp) / "store"
        load = _hotpotqa if args.corpus == "hotpotqa" else _locomo
        turns = await load(args, store, report)
        report["questions"] = len(turns.questions)
        for mode in args.modes.split(","):
            report["modes"][mode] = await run_mode(store, turns, mode)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=("locomo", "hotpotqa"), default="locomo")
    parser.add_argument("--store", type=Path, default=None, help="keep the memory so far here")
    parser.add_argument("--conversation", type=int, default=0, help="LoCoMo dev sample index")
    parser.add_argument("--history", type=int, default=300, help="LoCoMo turns remembered first")
    parser.add_argument("--turns", type=int, default=20, help="memories then written one by one")
    parser.add_argument("--modes", default=f"CHUNKS,GRAPH_COMPLETION,{ROUTED}")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.corpus == "hotpotqa":
        head = f"HotpotQA, {report['paragraphs']} paragraphs remembered"
    else:
        head = f"LoCoMo {report['conversation']}: {report['history_turns']} turns remembered"
    print(
        f"{head}, then {report['turns']} one at a time; "
        f"{report['questions']} questions (ms p50 / p95)"
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
