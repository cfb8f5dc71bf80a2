"""``TelemetryMiddleware``: an OpenTelemetry span and a duration metric for each HTTP
request, after the HTTP semantic conventions (``{method} {route}``, SERVER kind,
``http.request.method``, ``http.route``, ``http.response.status_code``, ``error.type``),
continuing the caller's trace from its ``traceparent`` header. The request's URL query
and body are never recorded. A method the conventions do not know is ``_OTHER`` (its
span named ``HTTP {route}``, the method as sent in ``http.request.method_original``),
so a client cannot add a metric series per method name it makes up."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypedDict

from recall_engine.telemetry import metrics
from recall_engine.telemetry.spans import SpanHandle, operation, tracer

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from starlette.types import Message, Receive, Scope, Send

try:
    from opentelemetry import propagate as _propagate
except ImportError:  # the otel extra is not installed: telemetry is off
    _propagate = None  # type: ignore[assignment]


KNOWN_METHODS = frozenset(
    {"CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"}
)
"""The HTTP semantic conventions' known methods; any other is recorded as ``_OTHER``."""

ERROR_HEADER = b"x-recall-error"
"""The header in which the server names a failed call's exception class."""


class _Reply(TypedDict, total=False):
    """What a request's answer told the middleware."""

    status: int
    """The response's HTTP status (500 when the app raised before answering)."""
    error: str
    """The exception class the server named in ``ERROR_HEADER``."""
    raised: bool
    """True: the app raised (``operation`` has counted the error already)."""


class TelemetryMiddleware:
    """Wraps an ASGI app; HTTP requests get a span and a duration measurement.

    Args:
        app: the ASGI app to wrap.
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (tracer() is None and metrics.instruments() is None):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent = str(scope.get("method", ""))
        method = sent if sent in KNOWN_METHODS else "_OTHER"
        reply: _Reply = {}

        async def observed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                reply["status"] = int(message["status"])
                headers = dict(message.get("headers") or [])
                if ERROR_HEADER in headers:
                    reply["error"] = headers[ERROR_HEADER].decode("latin-1")
            await send(message)

        first = {
            "http.request.method": method,
            "http.request.method_original": sent if method == "_OTHER" else None,
            "url.path": str(scope.get("path", "")),
            "url.scheme": str(scope.get("scheme", "http")),
        }
        with operation(
            _span_method(method),
            operation="http",
            attributes=first,
            server=True,
            parent=_parent(scope),
        ) as span:
            try:
                await self.app(scope, receive, observed_send)
            except Exception:
                reply.setdefault("status", 500)
                reply["raised"] = True  # counted as an error by ``operation`` already
                raise
            finally:
                _finish(span, scope, method, reply, time.perf_counter() - started)


def _span_method(method: str) -> str:
    """The method as a span name starts with it (``HTTP`` for ``_OTHER``)."""
    return "HTTP" if method == "_OTHER" else method


def _parent(scope: Scope) -> Context | None:
    """The trace context the caller sent (``traceparent``), or None."""
    if _propagate is None:
        return None
    headers = {
        key.decode("latin-1"): value.decode("latin-1") for key, value in scope.get("headers", [])
    }
    return _propagate.extract(headers)


def _finish(span: SpanHandle, scope: Scope, method: str, reply: _Reply, seconds: float) -> None:
    route = getattr(scope.get("route"), "path", None)
    status = reply.get("status")
    attributes: dict[str, str | int] = {"http.request.method": method}
    if route is not None:
        attributes["http.route"] = route
        span.rename(f"{_span_method(method)} {route}")
    if status is not None:
        attributes["http.response.status_code"] = status
    failure = reply.get("error") or (str(status) if status is not None and status >= 500 else None)
    if failure is not None:
        attributes["error.type"] = failure
        if status is not None and status >= 500:
            span.fail(failure)
        else:
            span.set("error.type", failure)
        if not reply.get("raised"):
            metrics.count_error(failure, "http")
    span.update(attributes)
    metrics.record_http(seconds, attributes)
