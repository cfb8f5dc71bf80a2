"""GRAPH_COMPLETION_CONTEXT_EXTENSION: the previous completion becomes the next query.

Up to 4 rounds. With an LLM each round's query is the answer generated from
the context so far; offline it is the question followed by every piece of
evidence used as a follow-up so far, the best one not used yet added last
(``graph_rounds.offline_follow_up``). Context is deduplicated by triplet key and
chunk id, and the loop stops as soon as a round brings no new triplet or passage
(it converges; ``graph_rounds.run_rounds``).

Offline, the query keeps the question: the best evidence alone as the next query
drifts to what that evidence is about. Asking the question plus all the evidence
ranks best and costs the most (longer queries to embed, and fewer loops converge
before the fourth round); the figures are in ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_rounds import (
    RoundsConfig,
    Stop,
    llm_answer,
    offline_follow_up,
    run_rounds,
)
from retrievers.graph_search import GraphResult

OFFLINE_MODE = "offline: next query = question + the evidence gathered so far"


class GraphContextExtensionConfig(RoundsConfig):
    pass


class GraphCompletionContextExtensionRetriever:
    """Graph completion that extends its context with what its own answer names."""

    search_type: ClassVar[str] = SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphContextExtensionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphContextExtensionConfig]
    ) -> RetrieverOutput:
        llm = ctx.llm
        options = config_of(ctx, GraphContextExtensionConfig)
        if llm is None:
            return await run_rounds(
                query, ctx, options, offline_follow_up(query, gather=True), mode=OFFLINE_MODE
            )

        async def extend(merged: GraphResult, used: set[Hashable]) -> str | Stop:
            return await llm_answer(llm, query, merged)

        return await run_rounds(query, ctx, options, extend, mode="llm")
