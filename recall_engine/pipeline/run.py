"""recall() as explicit stages: validate -> identity and scope -> session cache ->
route -> retrieve -> answer -> session write -> tag.

Each stage is a small method of ``RecallPipeline`` over a ``RecallState``, so a
later stage (sessions, users and permissions) replaces one method without
touching the others or the engine.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
from pydantic import ValidationError

from recall_engine.config import RecallConfig
from recall_engine.core.errors import InvalidInputError, SearchTypeNotImplementedError
from recall_engine.core.models import ResponseGraphEntry, ResponseQAEntry
from recall_engine.core.search_types import SearchType
from recall_engine.embedding import Embedder, embed_query
from recall_engine.pipeline.answer import answer_entry
from recall_engine.pipeline.normalize import context_entry, item_entries
from recall_engine.pipeline.request import _PARAM_DEFAULTS, RecallRequest
from recall_engine.pipeline.route import choose_search_type
from recall_engine.pipeline.scope import resolve_dataset_ids
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.tenant import TenantStore
from retrievers import RETRIEVERS, Identity, RetrievalContext, Retriever, RetrieverOutput
from retrievers.base import RetrieverConfig
from router import RouteDecision, Router

logger = logging.getLogger(__name__)


class EngineServices(Protocol):
    """What the pipeline needs from the engine that runs it."""

    config: RecallConfig
    embedder: Embedder
    router: Router

    def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore: ...

    def tenant_name(self, tenant_id: str | None) -> str: ...


@dataclass
class RecallState:
    """What the stages pass along for one call."""

    request: RecallRequest
    tenant_id: str = ""
    store: TenantStore | None = None
    dataset_ids: tuple[str, ...] = ()
    search_type: SearchType | None = None
    decision: RouteDecision | None = None
    retriever: type[Retriever] | None = None
    output: RetrieverOutput | None = None
    results: list[ResponseGraphEntry | ResponseQAEntry] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    done: bool = False


class _Timer:
    def __init__(self, timings: dict[str, float], name: str) -> None:
        self._timings, self._name = timings, name

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = (time.perf_counter() - self._start) * 1000
        self._timings[self._name] = round(self._timings.get(self._name, 0.0) + elapsed, 3)


class RecallPipeline:
    """Runs validated requests against an engine's stores."""

    def __init__(self, services: EngineServices) -> None:
        self.services = services

    async def run(self, request: RecallRequest) -> list[ResponseGraphEntry | ResponseQAEntry]:
        state = RecallState(request=request)
        for name, stage in (
            ("scope", self.resolve_scope),
            ("session", self.session_cache),
            ("route", self.route),
            ("retrieve", self.retrieve),
            ("answer", self.answer),
            ("session_write", self.session_write),
            ("tag", self.tag),
        ):
            with _Timer(state.timings, name):
                await stage(state)
            if state.done:
                break
        return state.results

    # stages

    async def resolve_scope(self, state: RecallState) -> None:
        """Identity and scope: the tenant store and the explicit dataset ids to read."""
        request = state.request
        state.tenant_id = self.services.tenant_name(request.tenant_id)
        store = await asyncio.to_thread(self.services.store, state.tenant_id)
        state.store = store
        state.dataset_ids = resolve_dataset_ids(
            store.tenant_id, store.datasets(), request.datasets, request.dataset_ids
        )

    async def session_cache(self, state: RecallState) -> None:
        """Answer from the session's cached QA entries (sessions are not built yet)."""

    async def route(self, state: RecallState) -> None:
        request = state.request
        state.search_type, state.decision = choose_search_type(
            request.query_text,
            request.query_type,
            auto_route=request.auto_route,
            config=self.services.config,
            rules=self.services.router,
        )
        retriever = RETRIEVERS.get(state.search_type)
        if retriever is None:
            available = ", ".join(t.value for t in RETRIEVERS)
            raise SearchTypeNotImplementedError(
                f"Search type {state.search_type.value} is not implemented yet; pass "
                f"query_type= one of: {available}."
            )
        state.retriever = retriever

    async def retrieve(self, state: RecallState) -> None:
        assert state.retriever is not None and state.store is not None
        request, retriever = state.request, state.retriever
        config = _retriever_config(retriever, request)
        if not state.dataset_ids:
            state.output = RetrieverOutput()
            return
        with _Timer(state.timings, "embed"):
            vector = await self.embed_query(request.query_text)
        ctx: RetrievalContext[Any] = RetrievalContext(
            read=StoreReader(state.store, state.dataset_ids),
            query_vector=vector,
            embed=self.embed_query,
            config=config,
            top_k=request.top_k,
            identity=Identity(tenant_id=state.tenant_id),
            reference_time=datetime.now(UTC).replace(tzinfo=None),
            llm=None,
            timings=state.timings,
        )
        state.output = await retriever().retrieve(request.query_text, ctx)

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
            state.results = [
                await answer_entry(
                    request,
                    output,
                    search_type=search_type,
                    kind=retriever.kind,
                    prompt=retriever.prompt,
                    config=self.services.config,
                )
            ]

    async def session_write(self, state: RecallState) -> None:
        """Append the QA entry to the session (sessions are not built yet)."""

    async def tag(self, state: RecallState) -> None:
        """Report the route decision (and, verbose, details and timings) on every result."""
        route = state.decision.model_dump(mode="json") if state.decision is not None else None
        output = state.output
        for entry in state.results:
            if not isinstance(entry, ResponseGraphEntry):
                continue
            if route is not None:
                entry.metadata["route"] = route
            if state.request.verbose:
                entry.metadata["retrieval"] = output.details if output is not None else {}
                entry.metadata["timings"] = dict(state.timings)

    # helpers

    async def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query (cached per process), off the event loop."""
        vector = await asyncio.to_thread(embed_query, self.services.embedder, text)
        return np.asarray(vector, dtype=np.float32)


def _retriever_config(retriever: type[Retriever], request: RecallRequest) -> RetrieverConfig:
    """The retriever's typed config from retriever_specific_config and the recall()
    parameters it declares.

    Raises:
        InvalidInputError: an option the retriever does not have, or a bad value.
    """
    fields = retriever.config_model.model_fields
    values = dict(request.retriever_specific_config)
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
        raise InvalidInputError(
            f"retriever_specific_config does not fit {retriever.search_type.value}: {exc}"
        ) from exc
