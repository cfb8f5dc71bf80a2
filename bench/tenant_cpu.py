"""CPU milliseconds per ``full_recall`` through the tenant API, in process.

``bench.server``'s req/s moves with the machine's load; the process's CPU time per
call (``time.process_time``, every thread) moves much less, so two code versions
can be compared by running this script against each, alternated in one window.
The corpus is ``bench.server``'s: the first ``--samples`` LoCoMo dev conversations
uploaded through the tenant API, one knowledge source of type ``conversation`` per
turn, one sub-tenant per conversation (``--remembered``: the same conversations
remembered as ``Conversation``s instead, as ``bench.tenant_recall`` stores them).

    .venv/bin/python -m bench.tenant_cpu --data-dir DIR [--samples 1] [--calls 150]
        [--modes fast,thinking] [--repeat 3] [--json FILE]

The first run on a data dir ingests (not timed); later runs reuse it. Per mode it
reports the CPU ms of a call whose question was not asked before (the query
embedding included, as in ``bench.server``) and of the same calls again (the query
vector cached), the median of ``--repeat`` passes, and a digest of the chunk ids
returned, so that two versions' results can be checked equal.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench._data import load_locomo
from recall_engine import RecallEngine

TENANT = "cpu"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="reused when it holds data")
    parser.add_argument("--samples", type=int, default=1, help="LoCoMo dev conversations")
    parser.add_argument("--calls", type=int, default=150, help="questions per pass, at most")
    parser.add_argument("--modes", default="fast,thinking")
    parser.add_argument("--repeat", type=int, default=3, help="warm passes per mode")
    parser.add_argument("--remembered", action="store_true", help="Conversations, not sources")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    return parser.parse_args()


async def _ingest(engine: RecallEngine, samples: list, remembered: bool) -> None:
    await engine.create_tenant(TENANT)
    for sample in samples:
        if remembered:
            from recall_engine.tenants.ids import KNOWLEDGE, dataset_name

            registry = engine.tenants.registry
            store = registry.store_name(TENANT)
            name = dataset_name(
                KNOWLEDGE, registry.sub_tenant_name(registry.owner_of(store), sample.sample_id)
            )
            await engine.remember(sample.conversation, dataset_name=name, tenant_id=store)
            continue
        sources = [
            {
                "id": m.id,
                "title": f"{sample.sample_id} {m.speaker}",
                "type": "conversation",
                "timestamp": m.timestamp,
                "text": f"{m.speaker}: {m.text}",
            }
            for m in sample.conversation.messages
        ]
        await engine.upload_knowledge(TENANT, sources, sub_tenant_id=sample.sample_id)


async def _pass(engine: RecallEngine, questions: list, mode: str) -> tuple[float, list]:
    ids = []
    started = time.process_time()
    for sample_id, text in questions:
        found = await engine.full_recall(
            tenant_id=TENANT, sub_tenant_id=sample_id, query=text, mode=mode, max_results=10
        )
        ids.append([c.chunk_uuid for c in found.chunks])
    return 1000 * (time.process_time() - started) / len(questions), ids


async def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = load_locomo()[: args.samples]
    args.data_dir.mkdir(parents=True, exist_ok=True)
    fresh = not (args.data_dir / "ingested").exists()
    async with RecallEngine(args.data_dir) as engine:
        if fresh:
            await _ingest(engine, samples, args.remembered)
            (args.data_dir / "ingested").write_text("yes")
        questions = [(s.sample_id, q.text) for s in samples for q in s.questions]
        questions = list(dict.fromkeys(questions))[: args.calls]
        report: dict[str, Any] = {"questions": len(questions)}
        await _pass(engine, questions[:3], "fast")  # loads models and caches
        for mode in args.modes.split(","):
            # the first mode's first pass embeds every question (cold); later ones reuse them
            cold, ids = await _pass(engine, questions, mode)
            warm = [(await _pass(engine, questions, mode))[0] for _ in range(args.repeat)]
            digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:12]
            report[mode] = {
                "first_pass_ms": round(cold, 2),
                "warm_ms": round(statistics.median(warm), 2),
                "warm_passes": [round(w, 2) for w in warm],
                "ids": digest,
            }
    return report


def main() -> None:
    args = _args()
    report = asyncio.run(run(args))
    print(json.dumps(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
