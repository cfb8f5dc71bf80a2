"""GRAPH_COMPLETION_CONTEXT_EXTENSION: the previous completion becomes the next query.

Up to 4 rounds. With an LLM each round's query is the answer generated from
the context so far; offline it is the best piece of evidence not used as a
query yet. Context is deduplicated by triplet key and chunk id, and the loop
stops as soon as a round brings no new triplet or passage (it converges;
``graph_rounds.run_rounds``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_rounds import RoundsConfig, Stop, llm_answer, run_rounds, unused_evidence
from retrievers.graph_search import GraphResult

OFFLINE_MODE = "offline: next query = best unused evidence"


class GraphContextExtensionConfig(RoundsConfig):
    pass


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
        llm = ctx.llm

        async def extend(merged: GraphResult, used: set[Hashable]) -> str | Stop:
            if llm is None:
                return unused_evidence(merged, used)
            return await llm_answer(llm, query, merged)

        options = config_of(ctx, GraphContextExtensionConfig)
        return await run_rounds(
            query, ctx, options, extend, mode="llm" if llm is not None else OFFLINE_MODE
        )
