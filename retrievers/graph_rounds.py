"""The multi-round graph retrievers' one loop, and the pieces they share.

``run_rounds`` is the loop of chain-of-thought and context extension: search
the question, then, while rounds are left, merge the rounds so far and ask the
retriever's ``next_query`` for the next query (or a ``Stop``); a round that
adds nothing new ends it ("converged"). Rounds are merged by reciprocal rank
(a hit's best rank over the rounds, later rounds weighted lower), deduplicated
by triplet key and chunk id, at most ``top_k``; so context never repeats and a
round that finds nothing new adds nothing.

The loop decides on each round's first ``round_k`` hits (what is new, the next
query), never on ``top_k``, so the same rounds run for every ``top_k``; each
round's list does not depend on ``top_k`` either, and the merge breaks ties by
the round and rank of a hit's best score, so the first 10 merged hits are the
same for any ``top_k`` of at least 10 (``retrievers.layout``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, TripletHit
from retrievers.base import LLM, RetrievalContext, RetrieverOutput
from retrievers.graph_output import graph_output
from retrievers.graph_search import GraphResult, GraphSearchConfig, graph_search, render_context

LATER_ROUND_WEIGHT = 0.7


class RoundsConfig(GraphSearchConfig):
    max_rounds: int = Field(default=4, ge=1, le=4, description="Retrieval rounds at most.")
    round_k: int = Field(
        default=25,
        ge=1,
        le=1000,
        description="Hits of each round the loop decides on (what is new, the next query); "
        "25, what the loop saw at the benches' top_k before it stopped following top_k.",
    )


@dataclass(frozen=True)
class Stop:
    """Ends the loop before another round; ``reason`` is reported as ``stopped``."""

    reason: str


@dataclass(frozen=True)
class FollowUp:
    """A next query with its vector, had without embedding the text (``hop_vector``)."""

    text: str
    vector: np.ndarray


NextQuery = Callable[[GraphResult, set[Hashable]], Awaitable[str | FollowUp | Stop]]
"""(the rounds merged so far, the keys of hits already used as queries) -> the
next round's query (its text, embedded by the loop, or a ``FollowUp``), or ``Stop``."""


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


async def _search(
    query: str, vector: Any, ctx: RetrievalContext[Any], options: RoundsConfig
) -> GraphResult:
    """One round's graph search, long enough for the loop and for ``top_k``."""
    top_k = max(ctx.top_k, options.round_k)
    return await graph_search(query, vector, ctx.read, options, top_k=top_k, timings=ctx.timings)


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
    step: str | FollowUp,
    ctx: RetrievalContext[Any],
    options: RoundsConfig,
    seen: set[Hashable],
    log: list[dict[str, Any]],
) -> GraphResult | None:
    """Search ``step`` (a query, embedded here, or a ``FollowUp``) as one more round
    and log it; None when the round's first ``round_k`` hits add nothing to ``seen``
    (the loop has converged), else the round's result (``max(top_k, round_k)`` hits)."""
    if isinstance(step, FollowUp):
        query, vector = step.text, step.vector
    else:
        query, vector = step, await ctx.embed(step)
    result = await _search(query, vector, ctx, options)
    added = new_keys(_head(result, options.round_k), seen)
    log.append({"query": query, "new": len(added)})
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


def hop_vector(
    query: str, query_vector: np.ndarray, evidence: str, evidence_vector: np.ndarray
) -> np.ndarray:
    """The vector of ``query`` followed by ``evidence``, from the two vectors already
    at hand instead of a new embedding: their sum weighted by word counts (what mean
    pooling over the joined text weighs them by), at unit length."""
    words_q, words_e = max(1, len(query.split())), max(1, len(evidence.split()))
    joined = words_q * np.asarray(query_vector, dtype=np.float32) + words_e * np.asarray(
        evidence_vector, dtype=np.float32
    )
    norm = float(np.linalg.norm(joined))
    return joined / norm if norm > 0 else np.asarray(query_vector, dtype=np.float32)


def offline_follow_up(
    query: str, *, gather: bool = False, reuse: RetrievalContext[Any] | None = None
) -> NextQuery:
    """The next query without an LLM: ``query`` plus the text of the best hit not
    used as a follow-up yet (a bridge to the next hop); with ``gather``, plus every
    hit used so far too, the newest last (the query grows with the context, as an
    answer written from the context so far would). ``Stop`` when none is left.

    With ``reuse`` (and without ``gather``), a passage's follow-up is searched with
    ``hop_vector`` of ``reuse``'s query vector and the passage's stored vector, not
    a new embedding of the joined text (which cost three query embeddings)."""
    gathered: list[str] = []

    async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | FollowUp | Stop:
        if not merged.hits:
            return Stop("no_context")
        evidence = best_new_evidence(merged, used)
        if evidence is None:
            return Stop("converged")
        used.add(hit_key(evidence))
        if not gather:
            gathered.clear()
        gathered.append(evidence.text)
        text = " ".join([query, *gathered])
        if reuse is not None and not gather and isinstance(evidence, ChunkHit):
            stored = await reuse.read.chunk_vectors([evidence.chunk_id])
            if evidence.chunk_id in stored:
                vector = hop_vector(
                    query, reuse.query_vector, evidence.text, stored[evidence.chunk_id]
                )
                return FollowUp(text, vector)
        return text

    return follow_up


async def run_rounds(
    query: str,
    ctx: RetrievalContext[Any],
    options: RoundsConfig,
    next_query: NextQuery,
    *,
    mode: str,
) -> RetrieverOutput:
    """The loop (module docstring); the output's details log every round's query and
    how many new hits it brought, why it stopped, and ``mode``."""
    first = await _search(query, ctx.query_vector, ctx, options)
    rounds = [first]
    seen: set[Hashable] = {hit_key(h) for h in _head(first, options.round_k).hits}
    used: set[Hashable] = set()
    log: list[dict[str, Any]] = [{"query": query, "new": len(seen)}]
    stop = "max_rounds"
    while len(rounds) < options.max_rounds:
        step = await next_query(merge_rounds(rounds, options.round_k), used)
        if isinstance(step, Stop):
            stop = step.reason
            break
        result = await next_round(step, ctx, options, seen, log)
        if result is None:
            stop = "converged"
            break
        rounds.append(result)
    return graph_output(merge_rounds(rounds, ctx.top_k), rounds=log, stopped=stop, mode=mode)
