"""What recall()'s stages share: the engine services they run on, the state one
call passes from stage to stage, and the timer each stage runs under."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from recall_engine.config import RecallConfig
from recall_engine.core.models import (
    RecallResult,
    ResponseSessionContextEntry,
    ResponseTraceEntry,
)
from recall_engine.core.search_types import SearchTypeName
from recall_engine.embedding import Embedder
from recall_engine.identity import IdentityRegistry, User
from recall_engine.identity.models import Access
from recall_engine.llm.usage import LLMUsage
from recall_engine.pipeline.coverage import Coverage
from recall_engine.pipeline.request import RecallRequest
from recall_engine.pipeline.session import SessionHistory
from recall_engine.pipeline.tense import Tense
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.sessions import SessionStore
from recall_engine.sessions.summaries import TraceSummaries
from recall_engine.sessions.traces import TraceStore
from recall_engine.storage.tenant import TenantStore
from retrievers import Retriever, RetrieverOutput
from router import RouteDecision, Router


class EngineServices(Protocol):
    """What the pipeline needs from the engine that runs it."""

    config: RecallConfig
    embedder: Embedder
    router: Router
    identity: IdentityRegistry
    sessions: SessionStore
    traces: TraceStore
    trace_summaries: TraceSummaries

    def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore: ...

    def open_store(self, tenant_id: str | None = None) -> TenantStore | None: ...

    def tenant_name(self, tenant_id: str | None) -> str: ...


@dataclass
class RecallState:
    """What the stages pass along for one call."""

    request: RecallRequest
    tenant_id: str = ""
    store: TenantStore | None = None
    user: User | None = None
    access: dict[str, Access] = field(default_factory=dict)
    """The datasets the user can read: id -> owner / write / read."""
    dataset_ids: tuple[str, ...] = ()
    session: SessionHistory | None = None
    search_type: SearchTypeName | None = None
    decision: RouteDecision | None = None
    handover: dict[str, object] | None = None
    """Retriever options the routed default adds (``pipeline.route.handover``)."""
    retriever: type[Retriever] | None = None
    output: RetrieverOutput | None = None
    query_vector: np.ndarray | None = None
    read: TenantReader | None = None
    """The reader of the call's store, scope and filter (``pipeline.retrieve.reader``),
    made once so that the stages share what it read (its last dense search)."""
    coverage: Coverage | None = None
    tense: Tense | None = None
    """The time the question asks about and the subject's facts (``pipeline.tense``)."""
    llm_retrieval: bool = False
    """An LLM took part in retrieval (it may bridge words the query does not share)."""
    llm_usage: list[LLMUsage] = field(default_factory=list)
    """The LLM calls retrieval made (chain-of-thought rounds, sub-questions, ...)."""
    results: list[RecallResult] = field(default_factory=list)
    side: list[RecallResult] = field(default_factory=list)
    """What ``scope`` found besides the graph: session entries, then traces."""
    traces: list[ResponseTraceEntry] = field(default_factory=list)
    session_context: ResponseSessionContextEntry | None = None
    """The session history and traces the LLM was given, when they fed the answer."""
    timings: dict[str, float] = field(default_factory=dict)
    done: bool = False


class StageTimer:
    """Adds the milliseconds of a ``with`` block to ``timings[name]``."""

    def __init__(self, timings: dict[str, float], name: str) -> None:
        self._timings, self._name = timings, name

    def __enter__(self) -> None:
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = (time.perf_counter() - self._start) * 1000
        self._timings[self._name] = round(self._timings.get(self._name, 0.0) + elapsed, 3)
