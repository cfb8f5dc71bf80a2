"""recall() in OpenTelemetry: one ``retrieval`` span per call (the GenAI semantic
conventions' retrieval span) with a child span per pipeline stage, and the recall
latency and session cache metrics. No-ops unless an SDK is set up (``telemetry``)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

from recall_engine.core.models import ResponseGraphEntry
from recall_engine.pipeline.state import RecallState
from recall_engine.telemetry import metrics
from recall_engine.telemetry.spans import (
    AttributeValue,
    SpanHandle,
    capture_content,
    error_type,
    operation,
)


@contextmanager
def observed(state: RecallState) -> Iterator[SpanHandle]:
    """The span and metrics of one recall; ``state`` is read when the call ends, for
    what the stages decided (route, search type, results, coverage). Yields the
    call's span, whose ``stage`` opens the stages' child spans."""
    request = state.request
    started = time.perf_counter()
    first: dict[str, AttributeValue | None] = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.retrieval.top_k": request.top_k,
        "recall_engine.query_type": str(request.query_type) if request.query_type else None,
        "recall_engine.only_context": request.only_context,
    }
    failure: str | None = None
    with operation("retrieval", operation="recall", attributes=first) as span:
        if span.recording and capture_content():
            span.set("gen_ai.retrieval.query.text", request.query_text)
        try:
            yield span
        except Exception as exc:
            failure = error_type(exc)
            raise
        finally:
            _outcome(span, state)
            _measure(state, time.perf_counter() - started, failure)


def _outcome(span: SpanHandle, state: RecallState) -> None:
    """What the stages decided, on the span."""
    if not span.recording:
        return
    decision, results = state.decision, [*state.side, *state.results]
    span.update(
        {
            "recall_engine.tenant_id": state.tenant_id or None,
            "recall_engine.dataset_ids": list(state.dataset_ids) or None,
            "gen_ai.data_source.id": state.dataset_ids[0] if len(state.dataset_ids) == 1 else None,
            "recall_engine.search_type": str(state.search_type) if state.search_type else None,
            "recall_engine.routed": decision is not None and state.request.query_type is None,
            "recall_engine.session_cache.hit": _cache_hit(state),
            "recall_engine.result.count": len(results),
        }
    )
    if decision is not None:
        span.update(
            {
                "recall_engine.route.search_type": str(decision.search_type),
                "recall_engine.route.score": decision.score,
                "recall_engine.route.runner_up": (
                    str(decision.runner_up) if decision.runner_up else None
                ),
                "recall_engine.route.rules": list(decision.fired),
                "recall_engine.route.default": decision.default,
                "recall_engine.route.confident": decision.confident,
            }
        )
    if state.coverage is not None:
        span.set("recall_engine.coverage", state.coverage.value)
        span.set("recall_engine.coverage.low", state.coverage.low)
    if capture_content():
        span.set("gen_ai.retrieval.documents", _documents(state))


def _documents(state: RecallState) -> str:
    """The results as the conventions' retrieval documents (JSON), texts included."""
    documents = []
    for entry in state.results:
        if isinstance(entry, ResponseGraphEntry):
            sources = entry.metadata.get("sources") or [{}]
            documents.append(
                {
                    "id": sources[0].get("chunk_id") if isinstance(sources[0], dict) else None,
                    "score": entry.score,
                    "search_type": str(entry.search_type),
                    "content": entry.text,
                }
            )
    return json.dumps(documents, ensure_ascii=False, default=str)


def _cache_hit(state: RecallState) -> bool:
    """The session cache answered (the pipeline stopped before routing)."""
    return state.done and state.search_type is None and bool(state.results)


def _measure(state: RecallState, seconds: float, failure: str | None) -> None:
    attributes: dict[str, str | bool] = {
        "recall_engine.routed": state.request.query_type is None,
    }
    if state.search_type is not None:
        attributes["recall_engine.search_type"] = str(state.search_type)
    elif _cache_hit(state):
        attributes["recall_engine.search_type"] = "session_cache"
    if failure is not None:
        attributes["error.type"] = failure
    metrics.record_recall(seconds, attributes)
    if _cache_hit(state):
        metrics.count_cache_hit("session")
