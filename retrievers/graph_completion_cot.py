"""GRAPH_COMPLETION_COT: answer, validate, ask a follow-up, retrieve again (<= 4 rounds).

With an LLM each round answers from the context so far, checks that answer
against the context (``cot_validation``; "Missing: nothing" ends the loop),
writes a follow-up query (``cot_followup``) and retrieves for it. Offline the
follow-up is the question plus the best piece of evidence not used yet (a
bridge to the next hop). New context is deduplicated by triplet key and chunk
id; a round that adds nothing ends the loop (``graph_rounds.run_rounds``).

Offline, the follow-up is not the question plus all the evidence used so far (what
offline context extension asks): on the "why" questions the router sends here it did
worse, and the two types would run the same search (``docs/decisions.md``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_rounds import (
    Query,
    RoundsConfig,
    Stop,
    llm_answer,
    offline_follow_up,
    run_rounds,
)
from retrievers.graph_search import GraphResult, render_context

OFFLINE_MODE = "offline: follow-up = question + best new evidence"
ROUTED_COT: dict[str, object] = {"max_rounds": 2}
"""What the routed default runs GRAPH_COMPLETION_COT with (``pipeline.route.HANDOVER``):
the question and one follow-up round; an explicit ``query_type`` runs every round.
Why two: ``docs/decisions.md``."""


class GraphCotConfig(RoundsConfig):
    pass


class GraphCompletionCotRetriever:
    """Graph completion that reasons in rounds about what is still missing."""

    search_type: ClassVar[str] = SearchType.GRAPH_COMPLETION_COT
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphCotConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[GraphCotConfig]) -> RetrieverOutput:
        llm = ctx.llm

        offline = offline_follow_up(query)

        async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | Query | Stop:
            if llm is None:
                return await offline(merged, used)
            if not merged.hits:
                return Stop("no_context")
            answer = await llm_answer(llm, query, merged)
            reasoning = await llm.complete(
                "cot_validation", question=query, answer=answer, context=render_context(merged)
            )
            if "missing: nothing" in reasoning.lower():
                return Stop("validated")
            return await llm.complete(
                "cot_followup", question=query, answer=answer, reasoning=reasoning
            )

        options = config_of(ctx, GraphCotConfig)
        return await run_rounds(
            query, ctx, options, follow_up, mode="llm" if llm is not None else OFFLINE_MODE
        )
