"""The tenant API's searches as retrievers, run by recall()'s pipeline.

``full_recall`` and ``recall_preferences`` pin ``PassageLane`` (fast mode:
HYBRID_COMPLETION's passage lane, ``retrievers.passages``) or ``GraphLane`` (thinking
mode: GRAPH_COMPLETION's search, ``retrievers.graph_search``, keeping its chunks);
``boolean_recall`` pins ``BooleanLane``. Each is a ``retrievers.base.Retriever`` the
pipeline runs in place of a registered search type (``RecallRequest.retriever``), so
the tenant API gets recall()'s narrowing, tense, feedback, coverage and traces. They
are not registered: ``recall(query_type=...)`` does not list them.

``alpha`` is the dense list's share of the two lists' weight (``lane_weights``); the
lanes' default weights are 1 and 1, so the title signal keeps its share.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from recall_engine.core.errors import InvalidInputError
from recall_engine.pipeline.request import RecallRequest
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.fusion import alpha_weights
from recall_engine.read.tenant_reader import TenantReader
from retrievers.base import (
    RetrievalContext,
    Retriever,
    RetrieverConfig,
    RetrieverOutput,
    config_of,
)
from retrievers.graph_search import GraphSearchConfig, graph_search
from retrievers.passages import PassageConfig, passages


def lane_weights(alpha: float) -> dict[str, float]:
    """The lane's ``dense_weight`` / ``lexical_weight`` for ``alpha`` (0: keywords
    only, 1: meaning only, 0.5: HYBRID_COMPLETION's own balance)."""
    dense, lexical = alpha_weights(alpha)
    return {"dense_weight": 2 * dense, "lexical_weight": 2 * lexical}


class _Embedded(RetrieverConfig):
    embed_text: str | None = Field(
        default=None,
        description="Embed this text for the dense list instead of the query "
        "(the query with the request's additional_context).",
    )


class PassageLaneConfig(PassageConfig, _Embedded):
    """``PassageConfig`` plus the text the dense list embeds."""


class GraphLaneConfig(GraphSearchConfig, _Embedded):
    """``GraphSearchConfig`` plus the text the dense list embeds."""


async def _vector(ctx: RetrievalContext[RetrieverConfig], options: _Embedded) -> np.ndarray:
    return await ctx.embed(options.embed_text) if options.embed_text else ctx.query_vector


class PassageLane:
    """Fast mode: dense and BM25 lists fused, title signals, scores spread to
    neighbouring turns (``retrievers.passages``)."""

    search_type: ClassVar[str] = "TENANT_PASSAGES"
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = PassageLaneConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[PassageLaneConfig]
    ) -> RetrieverOutput:
        """The ``ctx.top_k`` best chunks by the passage lane.

        Args:
            query: the query text (its words feed BM25).
            ctx: the reader bound to the request's filter and the lane's options.

        Returns:
            Chunk hits, best first, scored by the fused lists.
        """
        options = config_of(ctx, PassageLaneConfig)
        vector = await _vector(ctx, options)
        hits = await passages(ctx.read, vector, query, ctx.top_k, options)
        return RetrieverOutput(hits=list(hits), details={"lane": "passages"})


class GraphLane:
    """Thinking mode: GRAPH_COMPLETION's search (the passage lane plus entity links,
    the walk over passages and entities, relations), its chunks only."""

    search_type: ClassVar[str] = "TENANT_GRAPH"
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphLaneConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[GraphLaneConfig]) -> RetrieverOutput:
        """The ``ctx.top_k`` best chunks by GRAPH_COMPLETION's search.

        Args:
            query: the query text.
            ctx: the reader bound to the request's filter and the lane's options.

        Returns:
            Chunk hits, best first, as the graph search ranks its passages.
        """
        options = config_of(ctx, GraphLaneConfig)
        vector = await _vector(ctx, options)
        # Triplets share the search's room with chunks; twice k leaves k chunks or more.
        found = await graph_search(
            query,
            vector,
            ctx.read,
            options,
            top_k=2 * ctx.top_k,
            timings=ctx.timings,
            embed_part=ctx.part_vector,
        )
        return RetrieverOutput(hits=list(found.passages[: ctx.top_k]), details={"lane": "graph"})


class BooleanLaneConfig(RetrieverConfig):
    """How ``boolean_recall`` matches terms."""

    operator: Literal["or", "and", "phrase"] = Field(
        default="or", description="One term or more, every term, or the exact phrase."
    )


class BooleanLane:
    """Exact lexical matching (``TenantReader.boolean_chunks``), best BM25 first."""

    search_type: ClassVar[str] = "TENANT_BOOLEAN"
    kind: ClassVar[str] = "chunk"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = BooleanLaneConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[BooleanLaneConfig]
    ) -> RetrieverOutput:
        """Chunks with any term, every term or the phrase, best BM25 first.

        Raises:
            InvalidInputError: the pipeline's reader has no boolean search.
        """
        options = config_of(ctx, BooleanLaneConfig)
        if not isinstance(ctx.read, TenantReader):
            raise InvalidInputError("boolean matching needs the tenant reader's boolean search.")
        hits = await ctx.read.boolean_chunks(query, ctx.top_k, operator=options.operator)
        return RetrieverOutput(hits=list(hits), details={"lane": f"boolean {options.operator}"})


def lane_request(
    lane: type[Retriever[Any]],
    *,
    query: str,
    store: str,
    dataset_id: str,
    top_k: int,
    where: ChunkFilter | None,
    options: Mapping[str, object] | None = None,
    recency_bias: float = 0.0,
    as_of: datetime | None = None,
) -> RecallRequest:
    """The recall request that runs ``lane`` over one sub-tenant's dataset.

    Args:
        lane: the pinned retriever (``PassageLane``, ``GraphLane``, ``BooleanLane``).
        query: the query text.
        store: the tenant's store (the engine's tenant name).
        dataset_id: the sub-tenant's dataset (its only scope).
        top_k: how many hits to keep.
        where: the request's filter, bound to every read of the call.
        options: the lane's config values (``retriever_specific_config``).
        recency_bias: recall()'s ``recency_bias``.
        as_of: answer as of this time (naive UTC); None: now.

    Returns:
        A request for ``RecallPipeline.run_state``: context only, no router, no
        session, no answer, no results built (the caller reads the ranked hits).
    """
    return RecallRequest(
        query_text=query,
        query_type=lane.search_type,
        datasets=None,
        dataset_ids=(dataset_id,),
        top_k=top_k,
        auto_route=False,
        session_id=None,
        only_context=True,
        system_prompt=None,
        system_prompt_path=None,
        verbose=False,
        retriever_specific_config=dict(options or {}),
        response_model=None,
        include_references=False,
        retriever_params={},
        feedback_influence=0.0,
        user=None,
        tenant_id=store,
        recency_bias=recency_bias,
        as_of=as_of,
        where=where,
        retriever=lane,
        results=False,
    )
