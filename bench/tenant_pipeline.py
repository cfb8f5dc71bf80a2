"""full_recall against recall() running full_recall's passage lane, on the same LoCoMo
dev chunks (issue 37 step 3: one query path for the tenant API).

The lane (``retrievers.passages`` with full_recall's default weights) is registered as a
search type with ``register_retriever`` and asked through recall(); full_recall runs its
own copy of the lane (``tenants.lanes.PassageLane``) through the same pipeline. The report
counts the questions whose chunk order differs between the two entries (and by which
tense reading) and scores both orders: with one query path they agree (before it,
full_recall ran the lane directly, without the pipeline's stages).

    .venv/bin/python -m bench.tenant_pipeline [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any, ClassVar

from bench._data import cut_to_budget, load_locomo, mean_scores, score
from bench.tenant_recall import TENANT, TOP_K, _ingest
from recall_engine import RecallEngine, register_retriever
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.passages import PassageConfig, passages

NAME = "TENANT_PASSAGES"


class LaneConfig(RetrieverConfig):
    """The lane's weights, as full_recall derives them from ``alpha``."""

    dense_weight: float = 1.0
    lexical_weight: float = 1.0


class TenantPassages:
    """full_recall's fast-mode lane as a search type."""

    search_type: ClassVar[str] = NAME
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    config_model: ClassVar[type[RetrieverConfig]] = LaneConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[LaneConfig]) -> RetrieverOutput:
        config = config_of(ctx, LaneConfig)
        options = PassageConfig(
            dense_weight=config.dense_weight, lexical_weight=config.lexical_weight
        )
        hits = await passages(ctx.read, ctx.query_vector, query, ctx.top_k, options)
        return RetrieverOutput(hits=list(hits))


def _scored(ids: list[str], message_ids: dict[str, list[str]], cost: dict[str, int], gold: Any):
    ranked = list(dict.fromkeys(u for chunk in ids for u in message_ids[chunk]))
    return score(gold, ranked, cut_to_budget(ranked, lambda u: cost.get(u, 0)))


async def run(limit: int | None, data_dir: Path) -> None:
    register_retriever(NAME, TenantPassages)
    samples = load_locomo()[:limit] if limit else load_locomo()
    async with RecallEngine(data_dir) as engine:
        store, names = await _ingest(engine, samples)
        message_ids = {r.id: list(r.message_ids) for r in engine.store(store).index.records()}
        cost = {
            m.id: len(f"[date time] {m.speaker}: {m.text}".split())
            for s in samples
            for m in s.conversation.messages
            if m.id
        }
        rows: dict[str, list[dict[str, float]]] = {"full_recall": [], f"recall {NAME}": []}
        same = emptied = total = 0
        changed: dict[str, int] = {}
        for sample in samples:
            for q in (q for q in sample.questions if q.category in (1, 2, 3, 4)):
                total += 1
                found = await engine.full_recall(
                    tenant_id=TENANT,
                    sub_tenant_id=sample.sample_id,
                    query=q.text,
                    max_results=TOP_K,
                )
                direct = [c.chunk_uuid for c in found.chunks]
                results = await engine.recall(
                    q.text, NAME, datasets=[names[sample.sample_id]], tenant_id=store, top_k=TOP_K
                )
                piped = [r.metadata["sources"][0]["chunk_id"] for r in results]
                same += direct == piped
                emptied += bool(direct) and not piped
                if direct != piped and results:
                    reading = (results[0].metadata.get("temporal") or {}).get("reading", "?")
                    changed[reading] = changed.get(reading, 0) + 1
                rows["full_recall"].append(_scored(direct, message_ids, cost, q.gold))
                rows[f"recall {NAME}"].append(_scored(piped, message_ids, cost, q.gold))
    print(f"LoCoMo dev, {len(samples)} conversations, {total} questions cat 1-4")
    print(
        f"same chunk order: {same}; emptied by coverage: {emptied}; changed by reading: {changed}"
    )
    for label, scored in rows.items():
        means = mean_scores(scored)
        print(f"{label:<28}" + "".join(f" {k} {v:.1f}" for k, v in means.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(args.limit, Path(tmp)))


if __name__ == "__main__":
    main()
