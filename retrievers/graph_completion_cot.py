"""GRAPH_COMPLETION_COT: answer, validate, ask a follow-up, retrieve again (<= 4 rounds).

With an LLM each round answers from the context so far, checks that answer
against the context (``cot_validation``; "Missing: nothing" ends the loop),
writes a follow-up query (``cot_followup``) and retrieves for it. Offline the
follow-up is the question plus the best piece of evidence not used yet (a
bridge to the next hop). New context is deduplicated by triplet key and chunk
id; a round that adds nothing ends the loop.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_completion import graph_output
from retrievers.graph_rounds import (
    best_new_evidence,
    hit_key,
    llm_answer,
    merge_rounds,
    next_round,
)
from retrievers.graph_search import GraphSearchConfig, graph_search, render_context

OFFLINE_MODE = "offline: follow-up = question + best new evidence"


class GraphCotConfig(GraphSearchConfig):
    max_rounds: int = Field(default=4, ge=1, le=4, description="Retrieval rounds at most.")


class GraphCompletionCotRetriever:
    """Graph completion that reasons in rounds about what is still missing."""

    search_type: ClassVar[SearchType] = SearchType.GRAPH_COMPLETION_COT
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphCotConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[GraphCotConfig]) -> RetrieverOutput:
        options = config_of(ctx, GraphCotConfig)
        first = await graph_search(
            query, ctx.query_vector, ctx.read, options, top_k=ctx.top_k, timings=ctx.timings
        )
        rounds = [first]
        seen: set[Hashable] = {hit_key(h) for h in first.hits}
        used: set[Hashable] = set()
        log: list[dict[str, Any]] = [{"query": query, "new": len(first.hits)}]
        stop = "max_rounds"
        while len(rounds) < options.max_rounds:
            merged = merge_rounds(rounds, ctx.top_k)
            if not merged.hits:
                stop = "no_context"
                break
            if ctx.llm is not None:
                answer = await llm_answer(ctx.llm, query, merged)
                reasoning = await ctx.llm.complete(
                    "cot_validation", question=query, answer=answer, context=render_context(merged)
                )
                if "missing: nothing" in reasoning.lower():
                    stop = "validated"
                    break
                follow_up = await ctx.llm.complete(
                    "cot_followup", question=query, answer=answer, reasoning=reasoning
                )
            else:
                evidence = best_new_evidence(merged, used)
                if evidence is None:
                    stop = "converged"
                    break
                used.add(hit_key(evidence))
                follow_up = f"{query} {evidence.text}"
            result = await next_round(follow_up, ctx, options, seen, log)
            if result is None:
                stop = "converged"
                break
            rounds.append(result)
        return graph_output(
            merge_rounds(rounds, ctx.top_k),
            rounds=log,
            stopped=stop,
            mode="llm"
            if ctx.llm is not None
            else "offline: follow-up = question + best new evidence",
        )
