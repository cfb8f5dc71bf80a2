"""Pieces the multi-round graph retrievers share: merging rounds, the next query.

Rounds are merged by reciprocal rank (a hit's best rank over the rounds, later
rounds weighted lower), deduplicated by triplet key and chunk id, at most
``top_k``; so context never repeats and a round that finds nothing new adds
nothing.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from recall_engine.core.hits import AnyHit, ChunkHit, TripletHit
from retrievers.base import LLM, RetrievalContext
from retrievers.graph_search import GraphResult, GraphSearchConfig, graph_search, render_context

LATER_ROUND_WEIGHT = 0.7


def hit_key(hit: AnyHit) -> Hashable:
    """What makes two hits the same context: the triplet key, else the chunk id."""
    if isinstance(hit, TripletHit):
        return ("triplet", *hit.key)
    if isinstance(hit, ChunkHit):
        return ("chunk", hit.chunk_id)
    return (hit.kind, getattr(hit, "key", hit.text))


def new_keys(result: GraphResult, seen: set[Hashable]) -> list[Hashable]:
    """Keys of this round's hits not seen in earlier rounds, in rank order."""
    return [k for k in (hit_key(h) for h in result.hits) if k not in seen]


def merge_rounds(
    rounds: Sequence[GraphResult], top_k: int, *, later_weight: float = LATER_ROUND_WEIGHT
) -> GraphResult:
    """One result from several rounds (first round first; see module docstring);
    ``later_weight`` 1 weighs all rounds the same (sub-questions)."""
    score: dict[Hashable, float] = {}
    first: dict[Hashable, AnyHit] = {}
    for n, result in enumerate(rounds):
        weight = 1.0 if n == 0 else later_weight
        for rank, hit in enumerate(result.hits, start=1):
            key = hit_key(hit)
            score[key] = max(score.get(key, 0.0), weight / rank)
            first.setdefault(key, hit)
    order = sorted(score, key=lambda k: -score[k])[:top_k]
    hits: list[AnyHit] = [first[k].with_score(round(score[k], 6)) for k in order]
    entities: dict[str, Any] = {}
    distances: dict[str, float] = {}
    for result in rounds:
        for entity_id, ref in result.entities.items():
            entities.setdefault(entity_id, ref)
        distances.update(result.distances)
    return GraphResult(
        hits=hits,
        triplets=[h for h in hits if isinstance(h, TripletHit)],
        passages=[h for h in hits if isinstance(h, ChunkHit)],
        entities=entities,
        distances=distances,
        details=dict(rounds[0].details) if rounds else {},
    )


def best_new_evidence(result: GraphResult, used: set[Hashable]) -> AnyHit | None:
    """The best hit of a round not used to build a query yet (offline follow-ups)."""
    for hit in result.hits:
        if hit_key(hit) not in used:
            return hit
    return None


async def llm_answer(llm: LLM, question: str, result: GraphResult) -> str:
    """An intermediate answer from the graph context (not the final answer)."""
    return await llm.complete(
        "answer_from_graph_context",
        question=question,
        context=render_context(result),
        history="",
        support="",
    )


async def next_round(
    query: str,
    ctx: RetrievalContext[Any],
    options: GraphSearchConfig,
    seen: set[Hashable],
    log: list[dict[str, Any]],
) -> GraphResult | None:
    """Search ``query`` as one more round and log it; None when the round adds
    nothing to ``seen`` (the loop has converged), else the round's result."""
    result = await graph_search(
        query, await ctx.embed(query), ctx.read, options, top_k=ctx.top_k, timings=ctx.timings
    )
    added = new_keys(result, seen)
    log.append({"query": query, "new": len(added)})
    if not added:
        return None
    seen.update(added)
    return result
