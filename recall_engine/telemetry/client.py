"""Outgoing requests of the remote client as CLIENT spans whose context travels in the
request's ``traceparent`` header, so a trace that starts in the caller's process
continues through ``recall-engine serve`` (whose ``TelemetryMiddleware`` picks it up).
Only the method, the server address and the route template are recorded; never the
request body or its URL query."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from recall_engine.telemetry.spans import NOOP, SpanHandle, error_type, tracer

try:
    from opentelemetry import propagate as _propagate
    from opentelemetry.trace import SpanKind
except ImportError:  # the otel extra is not installed: telemetry is off
    _propagate = None  # type: ignore[assignment]


@contextmanager
def client_request(
    method: str, base_url: str, route: str
) -> Iterator[tuple[SpanHandle, dict[str, str]]]:
    """A CLIENT span around one HTTP request, and the headers that carry its context.

    With telemetry off, or no SDK provider set, there is no span and no header.

    Args:
        method: the HTTP method (``POST``).
        base_url: the server's base URL (``http://127.0.0.1:8000``); its host and port
            become ``server.address`` and ``server.port``.
        route: the route template or fixed path (``/api/v1/engine/{name}``); no query.

    Yields:
        The span's handle (to record the reply's status) and the headers to send.

    Raises:
        Whatever the request raises; the span is marked failed with its class name.
    """
    active = tracer()
    if active is None or _propagate is None:
        yield NOOP, {}
        return
    address = urlsplit(base_url)
    attributes: dict[str, str | int] = {
        "http.request.method": method,
        "server.address": address.hostname or "",
        "url.template": route,
    }
    if address.port is not None:
        attributes["server.port"] = address.port
    with active.start_as_current_span(
        f"{method} {route}",
        kind=SpanKind.CLIENT,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        headers: dict[str, str] = {}
        _propagate.inject(headers)
        handle = SpanHandle(span) if span.is_recording() else NOOP
        try:
            yield handle, headers
        except Exception as exc:
            handle.fail(error_type(exc))
            raise
