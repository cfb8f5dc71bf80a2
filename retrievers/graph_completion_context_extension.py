"""GRAPH_COMPLETION_CONTEXT_EXTENSION: the previous completion becomes the next query.

Up to 4 rounds. With an LLM each round's query is the answer generated from
the context so far; offline it is the best piece of evidence not used as a
query yet. Context is deduplicated by triplet key and chunk id, and the loop
stops as soon as a round brings no new triplet or passage (it converges).
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
from retrievers.graph_search import GraphSearchConfig, graph_search


class GraphContextExtensionConfig(GraphSearchConfig):
    max_rounds: int = Field(default=4, ge=1, le=4, description="Retrieval rounds at most.")


class GraphCompletionContextExtensionRetriever:
    """Graph completion that extends its context with what its own answer names."""

    search_type: ClassVar[SearchType] = SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphContextExtensionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphContextExtensionConfig]
    ) -> RetrieverOutput:
        options = config_of(ctx, GraphContextExtensionConfig)
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
            if ctx.llm is not None:
                next_query = await llm_answer(ctx.llm, query, merged)
            else:
                evidence = best_new_evidence(merged, used)
                if evidence is None:
                    stop = "converged"
                    break
                used.add(hit_key(evidence))
                next_query = evidence.text
            result = await next_round(next_query, ctx, options, seen, log)
            if result is None:
                stop = "converged"
                break
            rounds.append(result)
        return graph_output(
            merge_rounds(rounds, ctx.top_k),
            rounds=log,
            stopped=stop,
            mode="llm" if ctx.llm is not None else "offline: next query = best unused evidence",
        )
