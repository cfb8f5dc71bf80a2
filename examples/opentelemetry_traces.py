"""Trace and measure remember() and recall() with OpenTelemetry.

Needs the SDK besides the engine: pip install 'recall-engine[otel]' opentelemetry-sdk.
Here the spans and metrics go to in-memory exporters and are printed; in production
hand the SDK an OTLP exporter instead (opentelemetry-exporter-otlp). Query text and
memory content stay out of the spans unless capture_content is turned on.
Runs offline on the embedded default store (./.recall_engine, or RECALL_ENGINE_DATA_DIR).
"""

import asyncio

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from recall_engine import RecallEngine, SearchType, telemetry

NOTES = [
    "The night ferry to Brindle Island leaves from pier 4 at 23:10.",
    "Pier 4 closes for repairs in March; the ferry then leaves from pier 2.",
]


def show(spans) -> None:
    """Each trace as a tree: span name, duration and a few attributes."""
    children: dict[int | None, list] = {}
    for span in spans:
        children.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def walk(span, depth: int) -> None:
        ms = (span.end_time - span.start_time) / 1e6
        keep = ("recall_engine.search_type", "recall_engine.result.count", "http.route")
        attributes = {k.rsplit(".", 1)[-1]: v for k, v in span.attributes.items() if k in keep}
        print(f"{'  ' * depth}{span.name:<24} {ms:7.1f} ms  {attributes or ''}")
        for child in sorted(children.get(span.context.span_id, []), key=lambda s: s.start_time):
            walk(child, depth + 1)

    for root in children.get(None, []):
        walk(root, 0)


async def main() -> None:
    spans = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    # Or set the SDK's global providers (trace.set_tracer_provider): telemetry uses
    # them when it is given none.
    telemetry.configure(tracer_provider=tracing, meter_provider=MeterProvider([reader]))

    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="ferries")
        question = "Where does the night ferry leave from?"
        await engine.recall(question, top_k=3)  # routed
        await engine.recall(question, SearchType.CHUNKS, top_k=3)
    show(spans.get_finished_spans())

    text_seen = any(
        question in str(value) for span in spans.get_finished_spans()
        for value in span.attributes.values()
    )  # fmt: skip
    print(f"\nquery text in the spans: {text_seen}")
    for resource in reader.get_metrics_data().resource_metrics:
        for metric in (m for scope in resource.scope_metrics for m in scope.metrics):
            if metric.name == "recall_engine.recall.duration":
                for point in metric.data.data_points:
                    search_type = point.attributes["recall_engine.search_type"]
                    print(f"recalls by {search_type}: {point.count}")
    telemetry.configure(tracer_provider=None, meter_provider=None)


if __name__ == "__main__":
    asyncio.run(main())
