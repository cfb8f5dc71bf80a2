"""recall() as explicit stages: identity and scope -> session cache -> route ->
retrieve -> narrow -> tense -> feedback -> coverage -> answer -> session write ->
references -> tag.

Each stage is an object in ``RecallPipeline.stages`` (``pipeline.stage.Stage``) over
the call's ``RecallState``; a caller adds its own with ``insert_stage``. The early
stages live here; retrieval in ``pipeline.retrieve``, the rest in ``pipeline.finish``.
"""

from __future__ import annotations

import asyncio
import logging

import numpy as np

from recall_engine.core.errors import RecallPreconditionError, SearchTypeNotImplementedError
from recall_engine.core.models import RecallResult
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES
from recall_engine.core.terms import terms
from recall_engine.embedding import QUERY_CACHE, embed_query
from recall_engine.embedding.common import check_vectors
from recall_engine.embedding.warm import warm_up_soon
from recall_engine.pipeline import finish
from recall_engine.pipeline.coverage import matches_nothing, measure
from recall_engine.pipeline.feedback import rerank
from recall_engine.pipeline.narrowing import check_applies, narrow_output
from recall_engine.pipeline.observe import observed
from recall_engine.pipeline.request import RecallRequest
from recall_engine.pipeline.retrieve import feedback_window, reader, retrieval_k, retrieve
from recall_engine.pipeline.route import choose_search_type, handover
from recall_engine.pipeline.scope import node_scope, resolve_readable
from recall_engine.pipeline.session import cache_hits, element_ids, load_session
from recall_engine.pipeline.settle import settle_soon
from recall_engine.pipeline.stage import Stage, insert_stage, stage
from recall_engine.pipeline.state import EngineServices, RecallState, StageTimer
from recall_engine.pipeline.tense import apply_tense
from recall_engine.pipeline.traces import TraceVectors, scoped_sources
from recall_engine.storage.expiry import expired_data_ids, forget_expired
from recall_engine.telemetry.spans import SpanHandle
from retrievers import REGISTRY

logger = logging.getLogger(__name__)


class RecallPipeline:
    """Runs validated requests against an engine's stores."""

    def __init__(self, services: EngineServices) -> None:
        self.services = services
        self.trace_vectors = TraceVectors(services.embedder)
        self._warming = False
        self.stages: list[Stage] = [
            stage("scope", self.resolve_scope),
            stage("session", self.session_cache),
            stage("route", self.route),
            stage("retrieve", self.retrieve),
            stage("narrow", self.narrow),
            stage("tense", self.rank_tense),
            stage("feedback", self.apply_feedback),
            stage("coverage", self.measure_coverage),
            stage("answer", self.answer),
            stage("session_write", self.session_write),
            stage("references", finish.references),
            stage("tag", finish.tag),
        ]
        """The stages every recall runs, in order; a caller may extend or reorder them."""

    async def run(self, request: RecallRequest) -> list[RecallResult]:
        """What recall() returns for ``request``: the results of ``run_state``."""
        state = await self.run_state(request)
        extra = [state.session_context] if state.session_context is not None else []
        return [*state.side, *state.results, *extra]

    async def run_state(self, request: RecallRequest) -> RecallState:
        """Run every stage for ``request``; the state holds the ranked hits
        (``output``), the results, coverage, tense and timings (the tenant API reads
        its chunks from here)."""
        state = RecallState(request=request)
        if not self._warming:  # the model loads while the first recall opens its store
            self._warming = True
            warm_up_soon(self.services.embedder)
        with observed(state) as span:  # a span per call and per stage, when OpenTelemetry records
            await self._stages(state, span)
        if self.services.config.settle_heap and state.store is not None:
            settle_soon(state.store)  # its read state is loaded now (``pipeline.settle``)
        return state

    def insert_stage(
        self, new: Stage, *, after: str | None = None, before: str | None = None
    ) -> None:
        """Add a stage to every later recall of this pipeline (``pipeline.stage``).

        Raises:
            InvalidInputError: not exactly one of ``after``/``before``, an unknown
                stage name, or a name already taken.
        """
        insert_stage(self.stages, new, after=after, before=before)

    async def _stages(self, state: RecallState, span: SpanHandle) -> None:
        for step in list(self.stages):
            with StageTimer(state.timings, step.name), span.stage(f"recall.{step.name}"):
                await step.run(state)
            if state.done:
                break

    # stages

    async def resolve_scope(self, state: RecallState) -> None:
        """Identity and scope: the tenant store, the user, the datasets the user can
        read, and the explicit dataset ids this call searches (exclusive). In a worker
        thread, unless it only reads what this process holds (``_scope_in_process``):
        the hop to a thread and back costs more than those reads."""
        if self._scope_in_process(state):
            self._resolve_scope(state)
        else:
            await asyncio.to_thread(self._resolve_scope, state)

    def _scope_in_process(self, state: RecallState) -> bool:
        """The scope reads only this process's own state: identity is the data dir's
        own SQLite file (not a shared state database), the tenant's store is open
        already with its dataset list cached and nothing to sync from shared tables or
        a graph server, and nothing in it has expired (no delete to run)."""
        services = self.services
        if not services.identity.in_process:
            return False
        store = services.open_store(services.tenant_name(state.request.tenant_id))
        return store is not None and store.datasets_cached and not expired_data_ids(store)

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
        """Load the caller's session; without datasets, query_type, metadata_filters
        and as_of, answer from its cached QA entries when they match (source="session")
        and stop there."""
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
            alive=state.store.index.alive if state.store is not None else None,
        )
        if request.scope is not None:
            await scoped_sources(state, self.services, self.trace_vectors, self.embed_query)
            return
        if request.where is not None:
            return  # cached answers were not filtered: search the memory
        if request.as_of is not None:
            return  # cached answers hold for when they were given, not for as_of
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
        retriever = request.retriever or REGISTRY.get(state.search_type)
        if retriever is None:
            available = ", ".join(REGISTRY)
            raise SearchTypeNotImplementedError(
                f"Search type {state.search_type} is not implemented (or no longer "
                f"registered); pass query_type= one of: {available}."
            )
        check_applies(state.search_type, request.where)
        state.retriever = retriever

    async def retrieve(self, state: RecallState) -> None:
        """Run the chosen retriever (``pipeline.retrieve``)."""
        await retrieve(state, self.services, self.embed_query)

    async def narrow(self, state: RecallState) -> None:
        """metadata_filters and recency_bias on the hits (``pipeline.narrowing``)."""
        request, retriever = state.request, state.retriever
        if state.output is None or state.store is None or retriever is None:
            return
        keep = None if retriever.answers else retrieval_k(request, retriever, recency=False)
        await narrow_output(
            state.output,
            reader(state),
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
        if state.retriever is not None and state.retriever.whole_scope:
            return  # a complete list in time order (BROAD, GRAPH_REPORT) keeps it
        request, read = state.request, reader(state)
        state.tense = await apply_tense(
            request.query_text,
            state.output,
            read,
            as_of=request.as_of,
            keeps=await node_scope(request.retriever_params, read),
        )

    async def apply_feedback(self, state: RecallState) -> None:
        """With feedback_influence, re-rank hits by the ratings of answers that used them."""
        request, output = state.request, state.output
        if output is None or not output.hits or request.feedback_influence <= 0:
            return
        assert state.search_type is not None
        asked = request.retriever or REGISTRY[state.search_type]  # the type asked
        window = feedback_window(request, asked)
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
        sharing no content word with the scope (a query with none shares none) and far
        from every chunk by meaning matches nothing, so its hits are dropped and recall
        returns [] (unless an LLM
        took part in retrieval, whose own queries may reach what the words do not, or
        ``node_name`` picked the graph elements explicitly)."""
        output, request = state.output, state.request
        if output is None or not output.hits or state.store is None:
            return
        read = reader(state)
        best_dense: float | None = None
        if state.query_vector is not None and state.query_vector.size:
            nearest = await read.dense_chunks(state.query_vector, 1)
            best_dense = nearest[0].score if nearest else None
        coverage = measure(request.query_text, list(output.hits), best_dense=best_dense)
        chosen = (
            state.llm_retrieval
            or bool(request.retriever_params.get("node_name"))
            or (state.retriever is not None and state.retriever.whole_scope)  # about the scope
        )
        words = bool(terms(request.query_text))  # none ("?", "the of and"): none shared
        shares_none = coverage.signals.get("terms") == 0.0 or not words
        if shares_none and "rows" not in coverage.signals and not chosen:
            overlap = words and bool(await read.lexical_chunks(request.query_text, 1))
            if matches_nothing(overlap, best_dense):
                output.hits = []
                output.details["matched_nothing"] = True
        state.coverage = coverage

    async def answer(self, state: RecallState) -> None:
        """Items, a context entry or a generated answer (``pipeline.finish``)."""
        await finish.answer(state, self.services)

    async def session_write(self, state: RecallState) -> None:
        """Append a generated answer to the caller's session (``pipeline.finish``)."""
        await finish.session_write(state, self.services)

    # helpers

    async def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query (cached per process), off the event loop; a
        query already in the cache (the tenant API embeds its queries first, batched)
        costs no trip to a worker thread."""
        embedder = self.services.embedder
        vector = QUERY_CACHE.get(embedder.model_id, text)
        if vector is None:
            vector = await asyncio.to_thread(embed_query, embedder, text)
        else:  # checked as embed_query checks a cached vector
            check_vectors(
                vector.reshape(1, -1),
                rows=1,
                dimension=embedder.dimension,
                model_id=embedder.model_id,
            )
        return np.asarray(vector, dtype=np.float32)
