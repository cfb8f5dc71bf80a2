"""Spans through ``opentelemetry-api``: none at all when it is not installed, when
telemetry is off or when no SDK provider is set, and no child spans under a span that
does not record (not sampled), so an unobserved call pays for a provider check per
operation and an attribute check per stage."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from recall_engine.telemetry import metrics, settings

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, Tracer, TracerProvider

try:
    from opentelemetry import trace as _trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError:  # the otel extra is not installed: telemetry is off
    _trace = None  # type: ignore[assignment]

INSTRUMENTATION = "recall_engine"

AttributeValue = str | bool | int | float | list[str] | list[int] | list[float]

_tracer: tuple[int, TracerProvider, Tracer] | None = None
"""(settings generation, provider, tracer) of the last lookup."""


def tracer() -> Tracer | None:
    """The OpenTelemetry tracer telemetry reports to, or None when nothing would
    record: telemetry off, opentelemetry not installed, or no SDK provider set (the
    API's proxy and no-op providers make only non-recording spans)."""
    global _tracer
    if _trace is None:
        return None
    current = settings.current()
    if not current.enabled:
        return None
    provider = current.tracer_provider or _trace.get_tracer_provider()
    if isinstance(provider, _trace.ProxyTracerProvider | _trace.NoOpTracerProvider):
        return None
    generation = settings.generation()
    if _tracer is None or _tracer[0] != generation or _tracer[1] is not provider:
        _tracer = (generation, provider, provider.get_tracer(INSTRUMENTATION))
    return _tracer[2]


class SpanHandle:
    """One open span to add attributes to; does nothing when the span does not record."""

    __slots__ = ("_span",)

    def __init__(self, span: Span | None = None) -> None:
        self._span = span

    @property
    def recording(self) -> bool:
        """Whether attributes set here reach an exporter."""
        return self._span is not None

    def set(self, key: str, value: AttributeValue | None) -> None:
        """Set one attribute (None leaves it out)."""
        if self._span is not None and value is not None:
            self._span.set_attribute(key, value)

    def update(self, attributes: Mapping[str, AttributeValue | None]) -> None:
        """Set several attributes (None values are left out)."""
        for key, value in attributes.items():
            self.set(key, value)

    def stage(self, name: str) -> AbstractContextManager[SpanHandle]:
        """A child span of this one, made current for what runs inside; a shared
        no-op, at no further cost, when this span does not record.

        Args:
            name: the span name (``recall.route``).
        """
        return _NO_STAGE if self._span is None else stage(name)

    def rename(self, name: str) -> None:
        """Give the span its final name (an HTTP span once its route is known)."""
        if self._span is not None:
            self._span.update_name(name)

    def fail(self, error_type: str) -> None:
        """Mark the span failed with ``error.type`` (a reply that is an error)."""
        if self._span is not None:
            self._span.set_attribute("error.type", error_type)
            self._span.set_status(Status(StatusCode.ERROR, error_type))


NOOP = SpanHandle()


def error_type(exc: BaseException) -> str:
    """The ``error.type`` of an exception: its class name (``InvalidInputError``)."""
    return type(exc).__qualname__


def _mark_failed(span: Span, exc: Exception) -> None:
    """Status ERROR and ``error.type``; the message and traceback only with content
    capture on (a message may quote the caller's input)."""
    span.set_attribute("error.type", error_type(exc))
    if settings.current().capture_content:
        span.record_exception(exc)
        span.set_status(Status(StatusCode.ERROR, f"{error_type(exc)}: {exc}"))
    else:
        span.set_status(Status(StatusCode.ERROR, error_type(exc)))


@contextmanager
def operation(
    name: str,
    *,
    operation: str,
    attributes: Mapping[str, AttributeValue | None] | None = None,
    server: bool = False,
    parent: Context | None = None,
) -> Iterator[SpanHandle]:
    """A span for one public operation (recall, remember, an HTTP request), made the
    current span for what runs inside; an exception out of it counts in the
    ``recall_engine.errors`` metric under ``operation`` and marks the span failed.

    Args:
        name: the span name.
        operation: the operation's name in the errors metric.
        attributes: the span's first attributes (None values left out).
        server: a SERVER span (an HTTP request) instead of an INTERNAL one.
        parent: an OpenTelemetry ``Context`` to start from (a request's propagated one).
    """
    active = tracer()
    if active is None:
        try:
            yield NOOP
        except Exception as exc:
            metrics.count_error(error_type(exc), operation)
            raise
        return
    kind = SpanKind.SERVER if server else SpanKind.INTERNAL
    first = {k: v for k, v in (attributes or {}).items() if v is not None}
    with active.start_as_current_span(
        name,
        context=parent,
        kind=kind,
        attributes=first,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield SpanHandle(span) if span.is_recording() else NOOP
        except Exception as exc:
            metrics.count_error(error_type(exc), operation)
            if span.is_recording():
                _mark_failed(span, exc)
            raise


class _NoStage:
    """The stage of a span that does not record: nothing to open or close."""

    __slots__ = ()

    def __enter__(self) -> SpanHandle:
        return NOOP

    def __exit__(self, *exc: object) -> None:
        return None


_NO_STAGE = _NoStage()


def stage(name: str) -> AbstractContextManager[SpanHandle]:
    """A child span of the current span, only when that one records (else a shared
    no-op, so an unobserved call pays one context lookup per stage).

    Args:
        name: the span name (``recall.route``, ``remember.embedding``).
    """
    if _trace is None or not _trace.get_current_span().is_recording():
        return _NO_STAGE
    active = tracer()
    if active is None:
        return _NO_STAGE
    return _stage(active, name)


@contextmanager
def _stage(active: Tracer, name: str) -> Iterator[SpanHandle]:
    with active.start_as_current_span(
        name, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield SpanHandle(span)
        except Exception as exc:
            _mark_failed(span, exc)
            raise


def capture_content() -> bool:
    """Whether spans may carry query text and memory content."""
    return settings.current().capture_content
