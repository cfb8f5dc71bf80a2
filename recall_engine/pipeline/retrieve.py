"""The retrieve stage: the retriever's typed config, how many hits to ask for, and
the retrieval context it runs in."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import numpy as np
from pydantic import ValidationError

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.text_parts import Spans
from recall_engine.embedding import QUERY_CACHE, Embedder
from recall_engine.embedding.parts import cached_part, embed_query_part, parts_method
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.pipeline.delegate import (
    PipelineSearchTypes,
    holds_data,
    require_llm,
    retrieval_llm,
)
from recall_engine.pipeline.narrowing import retrieval_depth
from recall_engine.pipeline.request import _PARAM_DEFAULTS, MAX_TOP_K, RecallRequest
from recall_engine.pipeline.route import routed_handover
from recall_engine.pipeline.state import EngineServices, RecallState, StageTimer
from recall_engine.read.api import ChunkReads
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.telemetry.spans import stage as stage_span
from retrievers import REGISTRY, Identity, RetrievalContext, RetrieverOutput
from retrievers.base import NO_VECTOR, RetrieverClass, RetrieverConfig, wants_query_vector
from retrievers.content_query import rest_spans

FEEDBACK_WINDOW = 20
"""The best hits of an item result that feedback may reorder: the retriever is asked
for at least this many, so a well-rated hit down to rank 20 can move into a cut at 10.
A fixed window, not a multiple of ``top_k``: the head is then the same for every
``top_k`` (a window that grows with ``top_k`` moves the min-max scaling of every score)."""

STABLE_HEAD = 10
"""The head of an answering type's hits that feedback may reorder. Its context was laid
out from what it retrieved, so it is not asked for more than ``top_k``; reordering only
the first 10 keeps them the same for every ``top_k`` of at least 10."""


def reader(state: RecallState) -> TenantReader:
    """The reader of the call's store and scope, bound to its metadata filter (a
    ``TenantReader``: the read API plus boolean search, which the tenant API's
    boolean lane runs on) and, with ``as_of``, to what was said by then
    (``AsOfReader``): the retriever and every stage after it (narrowing, tense,
    coverage, the answer and its evidence) read through it. Made once per call,
    after the scope stage."""
    assert state.store is not None
    if state.read is None:
        request = state.request
        if request.as_of is not None:
            state.read = AsOfReader(
                state.store, state.dataset_ids, as_of=request.as_of, where=request.where
            )
        else:
            state.read = TenantReader(state.store, state.dataset_ids, where=request.where)
    return state.read


async def retrieve(
    state: RecallState,
    services: EngineServices,
    embed_query: Callable[[str], Awaitable[np.ndarray]],
) -> None:
    """Run the chosen retriever in the call's scope; ``state.output`` holds its hits.

    Raises:
        InvalidInputError: a retriever option that does not fit the type.
        LLMNotConfiguredError: the type needs an LLM and none can be called.
    """
    assert state.retriever is not None and state.store is not None
    request, retriever = state.request, state.retriever
    config = retriever_config(retriever, request, state.handover)
    if not holds_data(state.store, state.dataset_ids):
        state.output = RetrieverOutput()  # an empty scope answers [] for every type
        return
    llm = retrieval_llm(services.config, only_context=request.only_context)
    state.llm_retrieval = llm is not None
    require_llm(retriever, llm, only_context=request.only_context)
    vector = NO_VECTOR
    if wants_query_vector(retriever):
        with StageTimer(state.timings, "embed"), stage_span("recall.embed"):
            await embed_with_rest(request.query_text, config, reader(state), services.embedder)
            vector = await embed_query(request.query_text)
        state.query_vector = vector
    read = reader(state)  # with as_of, every read knows only what was said by then
    ctx: RetrievalContext[RetrieverConfig] = RetrievalContext(
        read=read,
        query_vector=vector,
        embed=embed_query,
        embed_part=functools.partial(embed_part, services.embedder),
        config=config,
        top_k=retrieval_k(request, retriever),
        identity=Identity(tenant_id=state.tenant_id, user_id=state.user.id if state.user else None),
        reference_time=reference_time(request),
        llm=llm,
        search_types=PipelineSearchTypes(
            services.config,
            routed=state.decision.search_type if state.decision else None,
            routed_config=routed_handover(state.decision),
            llm=llm is not None,
            whole_tenant=read.reads_whole_tenant(),
        ),
        session=state.session,
        timings=state.timings,
    )
    state.output = await retriever().retrieve(request.query_text, ctx)
    state.llm_usage = list(llm.usage) if llm is not None else []
    ran = state.output.search_type
    if ran is not None and ran != retriever.search_type and ran in REGISTRY:
        state.retriever = REGISTRY[ran]  # FEELING_LUCKY: results take the ran type's shape


def reference_time(request: RecallRequest) -> datetime:
    """What the call's relative phrases ("last month") resolve against at most
    (``RetrievalContext.reference_time``; naive UTC): now, or ``as_of`` when given,
    since an answer as of a time knows no later "now"."""
    now = datetime.now(UTC).replace(tzinfo=None)
    return now if request.as_of is None else min(now, request.as_of)


async def embed_with_rest(
    question: str, config: RetrieverConfig, read: ChunkReads, embedder: Embedder
) -> None:
    """Embed ``question`` and its rest (``content_query.rest_spans``: without the
    speakers' names, what the graph search's passage lane also searches with) in one
    model call, caching both, when the question is not cached yet and names a speaker.

    Only where the rest costs nothing more (a model that pools it from the question's
    own pass, ``embedding.parts``) or ``config``'s lane will ask for it.
    """
    if QUERY_CACHE.get(embedder.model_id, question) is not None:
        return
    if parts_method(embedder) is None and not getattr(config, "speaker_free_lane", False):
        return
    spans = rest_spans(question, await read.speakers())
    if spans is not None:
        await asyncio.to_thread(embed_query_part, embedder, question, spans)


async def embed_part(embedder: Embedder, text: str, spans: Spans) -> np.ndarray:
    """The vector of a part of a query (``embedding.parts``), cached per process, off
    the event loop unless cached (``RetrievalContext.embed_part``)."""
    vector = cached_part(embedder, text, spans)
    if vector is None:
        vector = await asyncio.to_thread(embed_query_part, embedder, text, spans)
    return vector


def retrieval_k(request: RecallRequest, retriever: RetrieverClass, *, recency: bool = True) -> int:
    """Hits to ask for: ``top_k``, and for item results re-ranked by feedback at
    least ``FEEDBACK_WINDOW``, so a well-rated hit below the cut can move into it
    (by recency: the relevant pool, ``narrowing.retrieval_depth``)."""
    k = request.top_k
    if request.feedback_influence > 0 and not retriever.answers:
        k = min(MAX_TOP_K, max(k, FEEDBACK_WINDOW))
    return retrieval_depth(k, request.recency_bias, answers=retriever.answers) if recency else k


def feedback_window(request: RecallRequest, retriever: RetrieverClass) -> int:
    """How many of the best hits feedback reorders (the rest keep their order);
    ``retriever`` is the type asked (FEELING_LUCKY's, not the one it ran), whose
    ``retrieval_k`` the hits were asked with."""
    if retriever.answers:
        return min(request.top_k, STABLE_HEAD)
    return FEEDBACK_WINDOW


def retriever_config(
    retriever: RetrieverClass,
    request: RecallRequest,
    handover: dict[str, object] | None = None,
) -> RetrieverConfig:
    """The retriever's typed config, merged here and nowhere else: the routed
    default's ``handover``, then retriever_specific_config (which wins over it), then
    the recall() parameters it declares.

    Raises:
        InvalidInputError: an option the retriever does not have, or a bad value.
    """
    fields = retriever.config_model.model_fields
    values = {**(handover or {}), **request.retriever_specific_config}
    for name, value in request.retriever_params.items():
        if name not in fields:
            raise InvalidInputError(
                f"{name} does not apply to {retriever.search_type}; leave it at "
                f"{_PARAM_DEFAULTS[name]!r} or pick a graph search type that uses it."
            )
        values[name] = value
    try:
        return retriever.config_model(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc'])) or 'config'}={error.get('input')!r}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise InvalidInputError(
            f"retriever_specific_config does not fit {retriever.search_type}: "
            f"{problems}. Fix the value or leave it out; the options are "
            f"{', '.join(sorted(fields))}."
        ) from exc
