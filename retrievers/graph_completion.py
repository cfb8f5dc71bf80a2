"""GRAPH_COMPLETION: graph-aware context (triplets and the passages they rest on) + answer.

The router's default target. The search itself is ``retrievers.graph_search``;
this class runs it once for the query (``follow_up_hops`` 0, the default) and
lays the context out as a Nodes block, a Connections block
(``A --[predicate]--> B (context)``) and the passages, best first.

With ``follow_up_hops`` > 0 it searches again for the question plus the best
evidence not used yet, as offline chain-of-thought does (``graph_rounds``), and
merges the rounds: the bridge to a second hop that shares no word with the
question. The routed default (no rule fires) asks for one hop
(``recall_engine.pipeline.route``), only when the first round says it is needed
(``hop_coverage``, ``retrievers.hop_gate``); an explicit GRAPH_COMPLETION runs one
search, within its latency budget.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_output import graph_output as graph_output  # re-exported
from retrievers.graph_rounds import RoundsConfig, offline_follow_up, run_rounds
from retrievers.graph_search import GraphSearchConfig, question_search
from retrievers.hop_gate import gated
from retrievers.hop_vector import stored_vector_follow_up

HOP_MODE = "follow-up hops: question + best new evidence"
ROUTED_HOP: dict[str, object] = {"follow_up_hops": 1, "hop_coverage": 0.7}
"""What the routed default runs GRAPH_COMPLETION with (``pipeline.route.HANDOVER``,
BROAD's fallback): one follow-up hop, when the first round needs it."""


class GraphCompletionConfig(GraphSearchConfig):
    """GRAPH_COMPLETION options (see ``GraphSearchConfig``)."""

    follow_up_hops: int = Field(
        default=0,
        ge=0,
        le=3,
        description="Searches after the first, each for the question plus the best "
        "evidence not used yet; the rounds are merged by rank (graph_rounds).",
    )
    hop_coverage: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="With follow_up_hops: hop only when the first round's best passage holds "
        "less than this share of the question's content words, the question does not "
        "ask for a list, and the first round does not hold every page that passage names "
        "by title already (retrievers.hop_gate); None: always hop.",
    )
    hop_vector_share: float | None = Field(
        default=None,
        ge=0,
        le=4,
        description="With follow_up_hops: search each hop with the question's vector plus "
        "this share of its evidence's stored vector (retrievers.hop_vector) instead of "
        "embedding the hop's text; None: embed it.",
    )


class GraphCompletionRetriever:
    """Triplets and passages ranked by vector distance, BM25 and graph structure."""

    search_type: ClassVar[str] = SearchType.GRAPH_COMPLETION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphCompletionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphCompletionConfig]
    ) -> RetrieverOutput:
        options = config_of(ctx, GraphCompletionConfig)
        if options.follow_up_hops > 0:
            rounds = RoundsConfig(
                **options.model_dump(
                    exclude={"follow_up_hops", "hop_coverage", "hop_vector_share"}
                ),
                max_rounds=1 + options.follow_up_hops,
            )
            share = options.hop_vector_share
            follow_up = (
                offline_follow_up(query)
                if share is None
                else stored_vector_follow_up(query, ctx.query_vector, ctx.read, share)
            )
            if options.hop_coverage is not None:
                follow_up = gated(query, follow_up, options.hop_coverage, ctx.read)
            return await run_rounds(query, ctx, rounds, follow_up, mode=HOP_MODE)
        result = await question_search(query, ctx, options)
        return graph_output(result)
