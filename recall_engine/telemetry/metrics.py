"""The metrics telemetry records, through ``opentelemetry-api`` (no-ops without an SDK).

- ``recall_engine.recall.duration`` (s, histogram): one recall, by
  ``recall_engine.search_type`` (the type that ran), ``recall_engine.routed`` and, on
  failure, ``error.type``.
- ``recall_engine.ingest.duration`` (s, histogram), ``recall_engine.ingest.items`` and
  ``recall_engine.ingest.chunks`` (counters): what remember() stored and how fast;
  throughput is the counters' rate.
- ``recall_engine.cache.hits`` (counter): answers served from a cache, by
  ``recall_engine.cache`` (``session``).
- ``recall_engine.errors`` (counter): failed operations, by ``error.type`` (the
  exception's class) and ``recall_engine.operation`` (recall, remember, http).
- ``http.server.request.duration`` (s, histogram): the server's requests, by the
  HTTP semantic conventions' method, route and status code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recall_engine.telemetry import settings

if TYPE_CHECKING:
    from opentelemetry.metrics import Counter, Histogram

try:
    from opentelemetry import metrics as _metrics
except ImportError:  # the otel extra is not installed: telemetry is off
    _metrics = None  # type: ignore[assignment]

DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
"""Seconds; the HTTP semantic conventions' advice for request durations."""

Attributes = Mapping[str, str | bool | int | float]


@dataclass(frozen=True)
class _Instruments:
    recall_duration: Histogram
    ingest_duration: Histogram
    ingest_items: Counter
    ingest_chunks: Counter
    cache_hits: Counter
    errors: Counter
    http_duration: Histogram


_instruments: tuple[int, _Instruments] | None = None


def instruments() -> _Instruments | None:
    """The instruments of the configured meter provider, or None when telemetry is off."""
    global _instruments
    if _metrics is None:
        return None
    current = settings.current()
    if not current.enabled:
        return None
    generation = settings.generation()
    if _instruments is None or _instruments[0] != generation:
        provider = current.meter_provider or _metrics.get_meter_provider()
        meter = provider.get_meter("recall_engine")

        def seconds(name: str, description: str) -> Histogram:
            return meter.create_histogram(
                name,
                unit="s",
                description=description,
                explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
            )

        made = _Instruments(
            recall_duration=seconds("recall_engine.recall.duration", "Duration of recall()."),
            ingest_duration=seconds("recall_engine.ingest.duration", "Duration of remember()."),
            ingest_items=meter.create_counter(
                "recall_engine.ingest.items", unit="{item}", description="Data items stored."
            ),
            ingest_chunks=meter.create_counter(
                "recall_engine.ingest.chunks", unit="{chunk}", description="Chunks stored."
            ),
            cache_hits=meter.create_counter(
                "recall_engine.cache.hits", unit="{hit}", description="Answers from a cache."
            ),
            errors=meter.create_counter(
                "recall_engine.errors", unit="{error}", description="Failed operations."
            ),
            http_duration=seconds(
                "http.server.request.duration", "Duration of HTTP server requests."
            ),
        )
        _instruments = (generation, made)
    return _instruments[1]


def record_recall(seconds: float, attributes: Attributes) -> None:
    """One recall's duration."""
    if (made := instruments()) is not None:
        made.recall_duration.record(seconds, attributes)


def record_ingest(seconds: float, *, items: int, chunks: int, attributes: Attributes) -> None:
    """One remember(): its duration and what it stored."""
    if (made := instruments()) is not None:
        made.ingest_duration.record(seconds, attributes)
        made.ingest_items.add(items, attributes)
        made.ingest_chunks.add(chunks, attributes)


def count_cache_hit(cache: str) -> None:
    """An answer served from ``cache``."""
    if (made := instruments()) is not None:
        made.cache_hits.add(1, {"recall_engine.cache": cache})


def count_error(error_type: str, operation: str) -> None:
    """A failed ``operation`` (recall, remember, http)."""
    if (made := instruments()) is not None:
        made.errors.add(1, {"error.type": error_type, "recall_engine.operation": operation})


def record_http(seconds: float, attributes: Attributes) -> None:
    """One HTTP request's duration."""
    if (made := instruments()) is not None:
        made.http_duration.record(seconds, attributes)
