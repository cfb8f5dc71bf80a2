"""The tenant API's ``full_recall`` against ``recall()``'s HYBRID_COMPLETION on the
same LoCoMo dev chunks, in one run (issue 17: one search core under both APIs).

One tenant holds every conversation, each in its own sub-tenant's knowledge
dataset, remembered as the same ``Conversation`` that ``bench.locomo`` ingests,
so both APIs rank the same chunks. Each question is asked of its own
conversation through ``full_recall`` (``max_results`` 25, default alpha, fast
mode, and each ``--alphas`` value) and through ``recall(..., HYBRID_COMPLETION,
top_k=25, only_context=True)``. Units and scores are ``bench.locomo``'s: dialogue
turn ids in rank order, recall@k over categories 1-4 and category 5 apart.

With ``--sources`` the same turns are also uploaded through the tenant API, one
knowledge source per turn (speaker as the title, the turn's time), into two
sub-tenants of another tenant: typed ``conversation`` (stored as one conversation per
sub-tenant, ``tenants.conversations``) and typed ``document`` (plain documents); full_recall
is asked of each (issue 37: conversation sources stored as conversations).

    .venv/bin/python -m bench.tenant_recall [--limit N] [--alphas 0.5,auto] [--thinking]
        [--sources] [--cold] [--json FILE]

With ``--cold`` the process's query-vector caches are emptied before each question,
so every path pays its own query embedding, as a new question does (without it, the
paths after the first find each question's vectors cached).

Target: full_recall with the default alpha within 0.5 points of HYBRID_COMPLETION
recall@10 (categories 1-4); full_recall over conversation sources within 1 point of
full_recall over the remembered ``Conversation``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._data import CATEGORY_NAMES, cut_to_budget, load_locomo, mean_scores, ranked_units, score
from recall_engine import RecallEngine, SearchType
from recall_engine.core.metadata import SOURCE_KEY
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.embedding.parts import PART_CACHE
from recall_engine.tenants.ids import KNOWLEDGE, dataset_name

TENANT = "locomo"
SOURCES_TENANT = "locomo-sources"
"""The tenant of the turns uploaded as sources: a tenant of its own, so that the same
statements remembered twice never meet in one graph (facts and their supersession are
the tenant's)."""
TOP_K = 25
HEADLINE = ("recall@5", "recall@10", "full@10", "mrr@10")


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--alphas", default="", help="more alphas to try, e.g. 0.5,auto")
    parser.add_argument("--thinking", action="store_true", help="also thinking mode")
    parser.add_argument(
        "--cold", action="store_true", help="empty the query-vector caches before each question"
    )
    parser.add_argument(
        "--sources", action="store_true", help="also the turns uploaded as knowledge sources"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    return parser.parse_args()


SOURCE_TYPES = ("conversation", "document")


def _sub(sample_id: str, kind: str | None) -> str:
    """The sub-tenant holding a sample's turns as sources of type ``kind`` (None: the
    remembered ``Conversation``)."""
    return sample_id if kind is None else f"{sample_id}-{kind}"


async def _upload_turns(engine: RecallEngine, samples: list) -> str:
    """Each sample's turns as knowledge sources, one per turn, of each SOURCE_TYPES, in
    ``SOURCES_TENANT``; returns its store name."""
    await engine.create_tenant(SOURCES_TENANT)
    for sample in samples:
        for kind in SOURCE_TYPES:
            sources = [
                {
                    "id": f"{kind}:{m.id}",
                    "title": m.speaker,
                    "type": kind,
                    "text": m.text,
                    "timestamp": m.timestamp,
                }
                for m in sample.conversation.messages
                if m.text.strip()
            ]
            sub = _sub(sample.sample_id, kind)
            await engine.upload_knowledge(SOURCES_TENANT, sources, sub_tenant_id=sub)
    return engine.tenants.registry.store_name(SOURCES_TENANT)


def _turns_of(records) -> dict[str, list[str]]:
    """Chunk id -> the dialogue turns it holds (a source's turn id, less its type)."""
    out = {}
    for record in records:
        source = (record.metadata or {}).get(SOURCE_KEY) or {}
        turn = str(source.get("source_id") or "").split(":", 1)[-1]
        out[record.id] = list(record.message_ids) if not source else [turn]
    return out


async def _ingest(engine: RecallEngine, samples: list) -> tuple[str, dict[str, str]]:
    """The tenant's store name and each sample's knowledge dataset name."""
    await engine.create_tenant(TENANT)
    registry = engine.tenants.registry
    store = registry.store_name(TENANT)
    owner = registry.owner_of(store)
    names = {}
    for sample in samples:
        names[sample.sample_id] = dataset_name(
            KNOWLEDGE, registry.sub_tenant_name(owner, sample.sample_id)
        )
        await engine.remember(
            sample.conversation, dataset_name=names[sample.sample_id], tenant_id=store
        )
    return store, names


def _summary(rows: dict[int, list[dict[str, float]]], latencies: list[float]) -> dict[str, Any]:
    headline = [row for cat in (1, 2, 3, 4) for row in rows.get(cat, [])]
    latencies = sorted(latencies)
    return {
        "cat1-4": mean_scores(headline),
        **{f"cat{c} {CATEGORY_NAMES[c]}": mean_scores(rows[c]) for c in sorted(rows)},
        "latency_ms_p50": 1000 * latencies[len(latencies) // 2],
    }


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    samples = load_locomo()[: args.limit] if args.limit else load_locomo()
    async with RecallEngine(data_dir) as engine:
        store, names = await _ingest(engine, samples)
        message_ids = _turns_of(engine.store(store).index.records())
        if args.sources:
            uploaded = await _upload_turns(engine, samples)
            message_ids.update(_turns_of(engine.store(uploaded).index.records()))
        cost = {
            m.id: len(f"[date time] {m.speaker}: {m.text}".split())
            for s in samples
            for m in s.conversation.messages
            if m.id
        }
        alphas: list[Any] = [
            None,
            *[a if a == "auto" else float(a) for a in filter(None, args.alphas.split(","))],
        ]
        paths: dict[str, Any] = {"recall HYBRID_COMPLETION": None}
        for alpha in alphas:
            paths[f"full_recall alpha={alpha or 'default'}"] = ("fast", alpha, None)
            if args.thinking:
                paths[f"full_recall thinking alpha={alpha or 'default'}"] = (
                    "thinking",
                    alpha,
                    None,
                )
        for kind in SOURCE_TYPES if args.sources else ():
            paths[f"full_recall {kind} sources"] = ("fast", None, kind)
        report: dict[str, Any] = {"conversations": len(samples), "paths": {}}
        for label, how in paths.items():
            rows: dict[int, list[dict[str, float]]] = {}
            latencies = []
            for sample in samples:
                for q in sample.questions:
                    if args.cold:
                        QUERY_CACHE.clear()
                        PART_CACHE.clear()
                    started = time.perf_counter()
                    if how is None:
                        results = await engine.recall(
                            q.text,
                            SearchType.HYBRID_COMPLETION,
                            datasets=[names[sample.sample_id]],
                            tenant_id=store,
                            top_k=TOP_K,
                            only_context=True,
                        )
                        units = ranked_units(results, lambda s: s["message_ids"])
                    else:
                        mode, alpha, kind = how
                        fields: dict[str, Any] = {"mode": mode}
                        if alpha is not None:
                            fields["alpha"] = alpha
                        found = await engine.full_recall(
                            tenant_id=TENANT if kind is None else SOURCES_TENANT,
                            sub_tenant_id=_sub(sample.sample_id, kind),
                            query=q.text,
                            max_results=TOP_K,
                            **fields,
                        )
                        units = [u for c in found.chunks for u in message_ids[c.chunk_uuid]]
                    latencies.append(time.perf_counter() - started)
                    ranked = list(dict.fromkeys(units))
                    budget = cut_to_budget(ranked, lambda u: cost.get(u, 0))
                    rows.setdefault(q.category, []).append(score(q.gold, ranked, budget))
            report["paths"][label] = _summary(rows, latencies)
    return report


def main() -> None:
    args = _args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(run(args, Path(tmp)))
    print(f"LoCoMo dev, {report['conversations']} conversations, one tenant")
    print(f"{'path':<36} {'slice':<20}" + "".join(f"{k:>10}" for k in HEADLINE))
    for label, body in report["paths"].items():
        for name, values in body.items():
            if (
                isinstance(values, dict)
                and values
                and (name == "cat1-4" or name.startswith("cat5"))
            ):
                print(f"{label:<36} {name:<20}" + "".join(f"{values[k]:>10.1f}" for k in HEADLINE))
        print(f"{label:<36} latency p50 {body['latency_ms_p50']:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
