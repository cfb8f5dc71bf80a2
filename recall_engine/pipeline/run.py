"""recall() as explicit stages: validate -> identity and scope -> session cache ->
route -> retrieve -> narrow -> feedback -> coverage -> answer -> session write -> tag.

Each stage is a small method of ``RecallPipeline`` over a ``RecallState``, so a
later stage (sessions, users and permissions) replaces one method without
touching the others or the engine.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

import numpy as np
from pydantic import ValidationError

from recall_engine.core.errors import (
    InvalidInputError,
    RecallPreconditionError,
    SearchTypeNotImplementedError,
)
from recall_engine.core.models import (
    RecallResult,
    ResponseGraphEntry,
)
from recall_engine.core.results import context_entry, item_entries
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES
from recall_engine.embedding import embed_query
from recall_engine.pipeline.answer import answer_entry
from recall_engine.pipeline.coverage import matches_nothing, measure
from recall_engine.pipeline.delegate import (
    PipelineSearchTypes,
    holds_data,
    require_llm,
    retrieval_llm,
)
from recall_engine.pipeline.feedback import rerank
from recall_engine.pipeline.narrowing import check_applies, narrow_output, retrieval_depth
from recall_engine.pipeline.observe import observed
from recall_engine.pipeline.references import add_evidence
from recall_engine.pipeline.request import _PARAM_DEFAULTS, MAX_TOP_K, RecallRequest
from recall_engine.pipeline.route import (
    choose_search_type,
    handover,
    handover_reason,
    routed_handover,
)
from recall_engine.pipeline.scope import resolve_readable
from recall_engine.pipeline.session import (
    answered,
    cache_hits,
    element_ids,
    hit_datasets,
    load_session,
)
from recall_engine.pipeline.state import EngineServices, RecallState, StageTimer
from recall_engine.pipeline.tense import apply_tense, tense_answer
from recall_engine.pipeline.traces import TraceVectors, scoped_sources, session_block
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.expiry import forget_expired
from recall_engine.telemetry.spans import SpanHandle
from recall_engine.telemetry.spans import stage as stage_span
from retrievers import RETRIEVERS, Identity, RetrievalContext, Retriever, RetrieverOutput
from retrievers.base import NO_VECTOR, RetrieverConfig, wants_query_vector

logger = logging.getLogger(__name__)


def _reader(state: RecallState) -> StoreReader:
    """The reader of the call's store and scope, bound to its metadata filter."""
    assert state.store is not None
    return StoreReader(state.store, state.dataset_ids, where=state.request.where)


class RecallPipeline:
    """Runs validated requests against an engine's stores."""

    def __init__(self, services: EngineServices) -> None:
        self.services = services
        self.trace_vectors = TraceVectors(services.embedder)

    async def run(self, request: RecallRequest) -> list[RecallResult]:
        state = RecallState(request=request)
        with observed(state) as span:  # a span per call and per stage, when OpenTelemetry records
            return await self._stages(state, span)

    async def _stages(self, state: RecallState, span: SpanHandle) -> list[RecallResult]:
        for name, stage in (
            ("scope", self.resolve_scope),
            ("session", self.session_cache),
            ("route", self.route),
            ("retrieve", self.retrieve),
            ("narrow", self.narrow),
            ("tense", self.rank_tense),
            ("feedback", self.apply_feedback),
            ("coverage", self.measure_coverage),
            ("answer", self.answer),
            ("session_write", self.session_write),
            ("references", self.references),
            ("tag", self.tag),
        ):
            with StageTimer(state.timings, name), span.stage(f"recall.{name}"):
                await stage(state)
            if state.done:
                break
        extra = [state.session_context] if state.session_context is not None else []
        return [*state.side, *state.results, *extra]

    # stages

    async def resolve_scope(self, state: RecallState) -> None:
        """Identity and scope: the tenant store, the user, the datasets the user can
        read, and the explicit dataset ids this call searches (exclusive)."""
        await asyncio.to_thread(self._resolve_scope, state)

    def _resolve_scope(self, state: RecallState) -> None:
        request, services = state.request, self.services
        state.tenant_id = services.tenant_name(request.tenant_id)
        try:
            store = services.store(state.tenant_id)
        except RecallPreconditionError:
            if request.scope is None or "graph" in request.scope:
                raise
            store = None  # a session-only recall needs no permanent memory
        known: dict[str, str] = {}
        if store is not None:
            forget_expired(store)  # memories past their time to live, for every search type
            state.store = store
            known = store.datasets()
        state.user = services.identity.resolve_user(state.tenant_id, request.user)
        state.access = services.identity.access(state.tenant_id, state.user, known)
        state.dataset_ids = resolve_readable(
            state.tenant_id, known, state.access, request.datasets, request.dataset_ids
        )

    async def session_cache(self, state: RecallState) -> None:
        """Load the caller's session; without datasets and query_type, answer from its
        cached QA entries when they match (source="session") and stop there."""
        request = state.request
        if request.session_id is None:
            return
        assert state.user is not None
        state.session = await asyncio.to_thread(
            load_session,
            self.services.sessions,
            state.tenant_id,
            state.user.id,
            request.session_id,
            state.access,
        )
        if request.scope is not None:
            await scoped_sources(state, self.services, self.trace_vectors, self.embed_query)
            return
        if request.where is not None:
            return  # cached answers were not filtered: search the memory
        if request.datasets is None and request.dataset_ids is None and request.query_type is None:
            hits = cache_hits(state.session, request.query_text, top_k=request.top_k)
            if hits:
                state.results = list(hits)
                state.done = True

    async def route(self, state: RecallState) -> None:
        request = state.request
        state.search_type, state.decision = choose_search_type(
            request.query_text,
            request.query_type,
            auto_route=request.auto_route,
            config=self.services.config,
            rules=self.services.router,
        )
        state.handover = handover(state.search_type, request.query_type, state.decision)
        retriever = RETRIEVERS.get(state.search_type)
        if retriever is None:
            available = ", ".join(t.value for t in RETRIEVERS)
            raise SearchTypeNotImplementedError(
                f"Search type {state.search_type.value} is not implemented yet; pass "
                f"query_type= one of: {available}."
            )
        check_applies(state.search_type, request.where)
        state.retriever = retriever

    async def retrieve(self, state: RecallState) -> None:
        assert state.retriever is not None and state.store is not None
        request, retriever = state.request, state.retriever
        config = _retriever_config(retriever, request, state.handover)
        if not holds_data(state.store, state.dataset_ids):
            state.output = RetrieverOutput()  # an empty scope answers [] for every type
            return
        llm = retrieval_llm(self.services.config, only_context=request.only_context)
        state.llm_retrieval = llm is not None
        require_llm(retriever, llm, only_context=request.only_context)
        vector = NO_VECTOR
        if wants_query_vector(retriever):
            with StageTimer(state.timings, "embed"), stage_span("recall.embed"):
                vector = await self.embed_query(request.query_text)
            state.query_vector = vector
        ctx: RetrievalContext[Any] = RetrievalContext(
            read=_reader(state),
            query_vector=vector,
            embed=self.embed_query,
            config=config,
            top_k=_retrieval_k(request, retriever),
            identity=Identity(
                tenant_id=state.tenant_id, user_id=state.user.id if state.user else None
            ),
            reference_time=datetime.now(UTC).replace(tzinfo=None),
            llm=llm,
            search_types=PipelineSearchTypes(
                self.services.config,
                routed=state.decision.search_type if state.decision else None,
                routed_config=routed_handover(state.decision),
                llm=llm is not None,
            ),
            session=state.session,
            timings=state.timings,
        )
        state.output = await retriever().retrieve(request.query_text, ctx)
        ran = state.output.search_type
        if ran is not None and ran is not retriever.search_type and ran in RETRIEVERS:
            state.retriever = RETRIEVERS[ran]  # FEELING_LUCKY: results take the ran type's shape

    async def narrow(self, state: RecallState) -> None:
        """metadata_filters and recency_bias on the hits (``pipeline.narrowing``)."""
        request, retriever = state.request, state.retriever
        if state.output is None or state.store is None or retriever is None:
            return
        keep = None if retriever.answers else _retrieval_k(request, retriever, recency=False)
        await narrow_output(
            state.output,
            _reader(state),
            state.store,
            where=request.where,
            bias=request.recency_bias,
            keep=keep,
        )

    async def rank_tense(self, state: RecallState) -> None:
        """Current facts first for a question about now, the asked period first for
        a past one, nothing stated after ``as_of`` (``pipeline.tense``)."""
        if state.output is None or state.store is None:
            return
        if state.search_type in CYPHER_SEARCH_TYPES:
            return  # rows in the order the caller's query asked for
        if getattr(state.retriever, "whole_scope", False):
            return  # a complete list in time order (BROAD, GRAPH_REPORT) keeps it
        request = state.request
        state.tense = await apply_tense(
            request.query_text, state.output, _reader(state), as_of=request.as_of
        )

    async def apply_feedback(self, state: RecallState) -> None:
        """With feedback_influence, re-rank hits by the ratings of answers that used them."""
        request, output = state.request, state.output
        if output is None or not output.hits or request.feedback_influence <= 0:
            return
        assert state.search_type is not None
        window = _feedback_window(request, RETRIEVERS[state.search_type])  # the type asked
        hits = list(output.hits)
        weights = await asyncio.to_thread(
            self.services.sessions.element_weights, state.tenant_id, element_ids(hits[:window])
        )
        ranked, applied = rerank(hits[:window], weights, request.feedback_influence)
        output.hits = [*ranked, *hits[window:]][: request.top_k]
        output.details["feedback"] = {
            "influence": request.feedback_influence,
            "rated_hits": len(applied),
            "window": window,
        }

    async def measure_coverage(self, state: RecallState) -> None:
        """How well the hits support the question (``pipeline.coverage``); a query
        sharing no content word with the scope and far from every chunk by meaning
        matches nothing, so its hits are dropped and recall returns [] (unless an LLM
        took part in retrieval, whose own queries may reach what the words do not, or
        ``node_name`` picked the graph elements explicitly)."""
        output, request = state.output, state.request
        if output is None or not output.hits or state.store is None:
            return
        read = _reader(state)
        best_dense: float | None = None
        if state.query_vector is not None and state.query_vector.size:
            nearest = await read.dense_chunks(state.query_vector, 1)
            best_dense = nearest[0].score if nearest else None
        coverage = measure(request.query_text, list(output.hits), best_dense=best_dense)
        chosen = (
            state.llm_retrieval
            or bool(request.retriever_params.get("node_name"))
            or getattr(state.retriever, "whole_scope", False)  # about the scope, not its words
        )
        if coverage.signals.get("terms") == 0.0 and not chosen:
            overlap = bool(await read.lexical_chunks(request.query_text, 1))
            if matches_nothing(overlap, best_dense):
                output.hits = []
                output.details["matched_nothing"] = True
        state.coverage = coverage

    async def answer(self, state: RecallState) -> None:
        assert state.retriever is not None and state.output is not None
        assert state.search_type is not None
        request, retriever, output = state.request, state.retriever, state.output
        search_type = output.search_type or state.search_type
        if not output.hits:
            state.results = []
        elif not retriever.answers:
            state.results = list(
                item_entries(list(output.hits), kind=retriever.kind, search_type=search_type)
            )
        elif request.only_context:
            state.results = [
                context_entry(
                    list(output.hits),
                    output.context_text(),
                    kind=retriever.kind,
                    search_type=search_type,
                )
            ]
        else:
            block = session_block(state.session, state.traces)
            entry = await answer_entry(
                request,
                output,
                search_type=search_type,
                kind=retriever.kind,
                prompt=retriever.prompt,
                config=self.services.config,
                session_history=block.text if block is not None else None,
                coverage=state.coverage,
                read=_reader(state) if state.store else None,
                offline_question=state.tense.offline_question() if state.tense else None,
                offline_hits=state.tense.answer_hits if state.tense else (),
            )
            if entry.metadata.get("answer_mode") == "extractive" and state.tense is not None:
                tense_answer(entry, request.query_text, state.tense, list(output.hits))
            state.results = [entry]
            if block is not None and entry.metadata.get("answer_mode") == "llm":
                state.session_context = block

    async def session_write(self, state: RecallState) -> None:
        """After a generated (LLM or extractive) answer, append the QA entry to the
        session; only_context and item results write nothing."""
        request, output = state.request, state.output
        entry = answered(state.results)
        if request.session_id is None or entry is None or output is None:
            return
        assert state.user is not None
        hits = list(output.hits)
        record = await asyncio.to_thread(
            self.services.sessions.append,
            state.tenant_id,
            state.user.id,
            request.session_id,
            question=request.query_text,
            context=output.context_text(),
            answer=entry.text,
            element_ids=element_ids(hits),
            dataset_ids=hit_datasets(hits),
        )
        entry.metadata["session_id"] = request.session_id
        entry.metadata["qa_id"] = record.qa_id

    async def references(self, state: RecallState) -> None:
        """With include_references, an Evidence block under a plain-text answer."""
        request, output = state.request, state.output
        entry = answered(state.results)
        if not request.include_references or entry is None or output is None:
            return
        if entry.structured is not None or request.response_model is not None:
            return
        assert state.store is not None
        await add_evidence(entry, list(output.hits), _reader(state))

    async def tag(self, state: RecallState) -> None:
        """Report the route decision, what the retriever reports on every result (its
        ``metadata``) and, verbose, details and timings on every result."""
        route = state.decision.model_dump(mode="json") if state.decision is not None else None
        if route is not None and state.handover is not None:
            assert state.search_type is not None
            route["handover"] = {
                "reason": handover_reason(state.search_type),
                "config": dict(state.handover),
            }
        output = state.output
        coverage = state.coverage.metadata() if state.coverage is not None else None
        for entry in state.results:
            if not isinstance(entry, ResponseGraphEntry):
                continue
            if output is not None:
                entry.metadata.update(output.metadata)
            if route is not None:
                entry.metadata["route"] = route
            if coverage is not None:
                entry.metadata.update(coverage)
            if state.tense is not None:
                temporal = dict(entry.metadata.get("temporal") or {})
                entry.metadata["temporal"] = {**temporal, **state.tense.metadata()}
            if state.request.verbose:
                entry.metadata["retrieval"] = output.details if output is not None else {}
                entry.metadata["timings"] = dict(state.timings)

    # helpers

    async def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query (cached per process), off the event loop."""
        vector = await asyncio.to_thread(embed_query, self.services.embedder, text)
        return np.asarray(vector, dtype=np.float32)


FEEDBACK_WINDOW = 20
"""The best hits of an item result that feedback may reorder: the retriever is asked
for at least this many, so a well-rated hit down to rank 20 can move into a cut at 10.
A fixed window, not a multiple of ``top_k``: the head is then the same for every
``top_k`` (a window that grows with ``top_k`` moves the min-max scaling of every score)."""

STABLE_HEAD = 10
"""The head of an answering type's hits that feedback may reorder. Its context was laid
out from what it retrieved, so it is not asked for more than ``top_k``; reordering only
the first 10 keeps them the same for every ``top_k`` of at least 10."""


def _retrieval_k(
    request: RecallRequest, retriever: type[Retriever], *, recency: bool = True
) -> int:
    """Hits to ask for: ``top_k``, and for item results re-ranked by feedback at
    least ``FEEDBACK_WINDOW``, so a well-rated hit below the cut can move into it
    (by recency: the relevant pool, ``narrowing.retrieval_depth``)."""
    k = request.top_k
    if request.feedback_influence > 0 and not retriever.answers:
        k = min(MAX_TOP_K, max(k, FEEDBACK_WINDOW))
    return retrieval_depth(k, request.recency_bias, answers=retriever.answers) if recency else k


def _feedback_window(request: RecallRequest, retriever: type[Retriever]) -> int:
    """How many of the best hits feedback reorders (the rest keep their order);
    ``retriever`` is the type asked (FEELING_LUCKY's, not the one it ran), whose
    ``_retrieval_k`` the hits were asked with."""
    if retriever.answers:
        return min(request.top_k, STABLE_HEAD)
    return FEEDBACK_WINDOW


def _retriever_config(
    retriever: type[Retriever],
    request: RecallRequest,
    handover: dict[str, object] | None = None,
) -> RetrieverConfig:
    """The retriever's typed config from the routed default's ``handover``,
    retriever_specific_config (which wins over it) and the recall() parameters it
    declares.

    Raises:
        InvalidInputError: an option the retriever does not have, or a bad value.
    """
    fields = retriever.config_model.model_fields
    values = {**(handover or {}), **request.retriever_specific_config}
    for name, value in request.retriever_params.items():
        if name not in fields:
            raise InvalidInputError(
                f"{name} does not apply to {retriever.search_type.value}; leave it at "
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
            f"retriever_specific_config does not fit {retriever.search_type.value}: "
            f"{problems}. Fix the value or leave it out; the options are "
            f"{', '.join(sorted(fields))}."
        ) from exc
