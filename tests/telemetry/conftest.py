"""An OpenTelemetry SDK with in-memory exporters, handed to ``telemetry.configure``
for one test (the process's global providers are left alone)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from recall_engine import telemetry


@dataclass
class Otel:
    spans: InMemorySpanExporter
    reader: InMemoryMetricReader
    provider: TracerProvider

    def tracer(self, name: str) -> Tracer:
        """A tracer of this SDK, for spans of the test's own (an application's)."""
        return self.provider.get_tracer(name)

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name == name]

    def points(self, metric: str) -> list[Any]:
        """The data points of one metric, collected now."""
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data else []:
            for scope in resource.scope_metrics:
                for m in scope.metrics:
                    if m.name == metric:
                        found += list(m.data.data_points)
        return found


@pytest.fixture
def otel() -> Iterator[Otel]:
    exporter = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    telemetry.configure(
        enabled=True, capture_content=False, tracer_provider=tracing, meter_provider=meters
    )
    try:
        yield Otel(exporter, reader, tracing)
    finally:
        telemetry.configure(
            enabled=True, capture_content=False, tracer_provider=None, meter_provider=None
        )
        tracing.shutdown()
        meters.shutdown()
