"""The multi-round graph retrievers' one loop, and the pieces they share.

``run_rounds`` is the loop of chain-of-thought and context extension: search
the question, then, while rounds are left, merge the rounds so far and ask the
retriever's ``next_query`` for the next query (or a ``Stop``); a round that
adds nothing new ends it ("converged"). Rounds are merged by reciprocal rank
(a hit's best rank over the rounds, later rounds weighted lower), deduplicated
by triplet key and chunk id, at most ``top_k``; so context never repeats and a
round that finds nothing new adds nothing.

The loop decides on each round's first ``ROUND_K`` hits (what is new, the next
query), never on ``top_k``, so the same rounds run for every ``top_k``; each
round's list does not depend on ``top_k`` either, and the merge breaks ties by
the round and rank of a hit's best score, so the first 10 merged hits are the
same for any ``top_k`` of at least 10 (``retrievers.layout``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, EntityRef, TripletHit
from retrievers.base import LLM, RetrievalContext, RetrieverConfig, RetrieverOutput
from retrievers.graph_output import graph_output
from retrievers.graph_search import GraphResult, GraphSearchConfig, graph_search, render_context

LATER_ROUND_WEIGHT = 0.7
ROUND_K = 25
"""Hits of each round the loop decides on (what is new, the next query): what the
loop saw at the benches' top_k before it stopped following top_k."""


class RoundsConfig(GraphSearchConfig):
    max_rounds: int = Field(default=4, ge=1, le=4, description="Retrieval rounds at most.")


@dataclass(frozen=True)
class Query:
    """A next query whose vector is already known: the round embeds nothing."""

    text: str
    vector: np.ndarray


@dataclass(frozen=True)
class Stop:
    """Ends the loop before another round; ``reason`` is reported as ``stopped``."""

    reason: str


NextQuery = Callable[[GraphResult, set[Hashable]], Awaitable[str | Query | Stop]]
"""(the rounds merged so far, the keys of hits already used as queries) -> the
next round's query (a text to embed, or a ``Query`` with its vector), or ``Stop``."""


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
    best_at: dict[Hashable, tuple[int, int]] = {}  # (round, rank) of the best score: ties
    first: dict[Hashable, AnyHit] = {}
    for n, result in enumerate(rounds):
        weight = 1.0 if n == 0 else later_weight
        for rank, hit in enumerate(result.hits, start=1):
            key = hit_key(hit)
            if weight / rank > score.get(key, 0.0):
                score[key], best_at[key] = weight / rank, (n, rank)
            first.setdefault(key, hit)
    order = sorted(score, key=lambda k: (-score[k], best_at[k]))[:top_k]
    hits: list[AnyHit] = [first[k].with_score(round(score[k], 6)) for k in order]
    entities: dict[str, EntityRef] = {}
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


async def _search(
    query: str,
    vector: np.ndarray,
    ctx: RetrievalContext[RetrieverConfig],
    options: RoundsConfig,
    *,
    first: bool = False,
) -> GraphResult:
    """One round's graph search, long enough for the loop and for ``top_k``; the
    first round's passage lane also searches without the speakers' names (a follow-up
    query carries its evidence's words, which say what it asks)."""
    top_k = max(ctx.top_k, ROUND_K)
    embed_part = ctx.part_vector if first else None
    return await graph_search(
        query, vector, ctx.read, options, top_k=top_k, timings=ctx.timings, embed_part=embed_part
    )


def _head(result: GraphResult, k: int) -> GraphResult:
    """A round's first ``k`` hits, as the loop sees it."""
    hits = result.hits[:k]
    return GraphResult(hits=hits, details=result.details)


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
    query: str | Query,
    ctx: RetrievalContext[RetrieverConfig],
    options: RoundsConfig,
    seen: set[Hashable],
    log: list[dict[str, object]],
) -> GraphResult | None:
    """Search ``query`` as one more round and log it; None when the round's first
    ``ROUND_K`` hits add nothing to ``seen`` (the loop has converged), else the
    round's result (``max(top_k, ROUND_K)`` hits). A ``Query`` is searched with its
    own vector; a text is embedded first."""
    if isinstance(query, Query):
        text, vector = query.text, query.vector
    else:
        text, vector = query, await ctx.embed(query)
    result = await _search(text, vector, ctx, options)
    added = new_keys(_head(result, ROUND_K), seen)
    log.append({"query": text, "new": len(added)})
    if not added:
        return None
    seen.update(added)
    return result


def unused_evidence(merged: GraphResult, used: set[Hashable]) -> str | Stop:
    """The offline next query: the text of the best hit not used as one yet
    (marked used), or ``Stop("converged")`` when every hit was."""
    evidence = best_new_evidence(merged, used)
    if evidence is None:
        return Stop("converged")
    used.add(hit_key(evidence))
    return evidence.text


def offline_follow_up(query: str, *, gather: bool = False) -> NextQuery:
    """The next query without an LLM: ``query`` plus the text of the best hit not
    used as a follow-up yet (a bridge to the next hop); with ``gather``, plus every
    hit used so far too, the newest last (the query grows with the context, as an
    answer written from the context so far would). ``Stop`` when none is left."""
    gathered: list[str] = []

    async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | Stop:
        if not merged.hits:
            return Stop("no_context")
        evidence = unused_evidence(merged, used)
        if isinstance(evidence, Stop):
            return evidence
        if not gather:
            gathered.clear()
        gathered.append(evidence)
        return " ".join([query, *gathered])

    return follow_up


async def run_rounds(
    query: str,
    ctx: RetrievalContext[RetrieverConfig],
    options: RoundsConfig,
    next_query: NextQuery,
    *,
    mode: str,
) -> RetrieverOutput:
    """The loop (module docstring); the output's details log every round's query and
    how many new hits it brought, why it stopped, and ``mode``."""
    first = await _search(query, ctx.query_vector, ctx, options, first=True)
    rounds = [first]
    seen: set[Hashable] = {hit_key(h) for h in _head(first, ROUND_K).hits}
    used: set[Hashable] = set()
    log: list[dict[str, object]] = [{"query": query, "new": len(seen)}]
    stop = "max_rounds"
    while len(rounds) < options.max_rounds:
        step = await next_query(merge_rounds(rounds, ROUND_K), used)
        if isinstance(step, Stop):
            stop = step.reason
            break
        result = await next_round(step, ctx, options, seen, log)
        if result is None:
            stop = "converged"
            break
        rounds.append(result)
    return graph_output(merge_rounds(rounds, ctx.top_k), rounds=log, stopped=stop, mode=mode)
