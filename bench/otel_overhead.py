"""What the OpenTelemetry hooks cost when no SDK is configured (the default).

One engine, one synthetic corpus (Faker sentences, seeded), one process. Every query
is asked under each setting in turn, the order alternating, so drift and caches hit
all settings alike:

- off: ``telemetry.configure(enabled=False)``; the hooks return at once.
- hooks: telemetry on, no SDK: the ``opentelemetry-api`` no-op path users get by default.
- sdk (``--sdk``): an SDK tracer and meter provider exporting to memory, for scale.

Reports recall p50 / mean per setting, the ratio of the p50s hooks/off and the median
of the per-query ratios (each pair ran back to back), plus the hooks' own
cost per recall timed apart (one ``retrieval`` span and the stage spans, no engine),
which does not drown in the noise of a shared machine.

    .venv/bin/python -m bench.otel_overhead [--docs N] [--queries N] [--rounds N]
        [--search-type CHUNKS] [--hash-embedder] [--sdk] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._data import percentile
from recall_engine import RecallEngine, SearchType, telemetry

STAGES = 12  # the pipeline's 11 stages and the query embedding


def corpus(docs: int, seed: int) -> tuple[list[str], list[str]]:
    """``docs`` paragraphs and questions built from their sentences."""
    from faker import Faker

    fake = Faker()
    fake.seed_instance(seed)
    paragraphs = [" ".join(fake.sentences(5)) for _ in range(docs)]
    rng = random.Random(seed)
    questions = [rng.choice(p.split(". ")).rstrip(".") + "?" for p in paragraphs]
    return paragraphs, questions


def sdk_providers() -> tuple[Any, Any]:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    return tracing, MeterProvider(metric_readers=[InMemoryMetricReader()])


def hook_cost_us(repeats: int) -> float:
    """Microseconds the no-SDK hooks of one recall take, without the engine: the call's
    span, its stage spans, the query embedding's span and the latency measurement."""
    from recall_engine.telemetry import metrics
    from recall_engine.telemetry.spans import operation, stage

    telemetry.configure(enabled=True, tracer_provider=None, meter_provider=None)
    started = time.perf_counter()
    for _ in range(repeats):
        with operation(
            "retrieval", operation="recall", attributes={"gen_ai.retrieval.top_k": 5}
        ) as span:
            for _ in range(STAGES - 1):
                with span.stage("recall.stage"):
                    pass
            with stage("recall.embed"):
                pass
        metrics.record_recall(0.01, {"recall_engine.search_type": "CHUNKS"})
    return (time.perf_counter() - started) / repeats * 1e6


async def measure(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    paragraphs, questions = corpus(args.docs, args.seed)
    questions = questions[: args.queries]
    options: dict[str, Any] = {}
    if args.hash_embedder:
        from recall_engine.testing import DeterministicEmbedder

        options["embedder"] = DeterministicEmbedder()
    settings: dict[str, dict[str, Any]] = {
        "off": {"enabled": False, "tracer_provider": None, "meter_provider": None},
        "hooks": {"enabled": True, "tracer_provider": None, "meter_provider": None},
    }
    if args.sdk:
        tracing, meters = sdk_providers()
        settings["sdk"] = {"enabled": True, "tracer_provider": tracing, "meter_provider": meters}
    search_type = SearchType(args.search_type) if args.search_type else None
    times: dict[str, list[float]] = {name: [] for name in settings}
    async with RecallEngine(data_dir, **options) as engine:
        await engine.remember(paragraphs, dataset_name="bench")
        for question in questions[:5]:  # warm the model and the stores
            await engine.recall(question, search_type, top_k=args.top_k)
        order = list(settings)
        for round_ in range(args.rounds):
            for i, question in enumerate(questions):
                for name in order if (round_ + i) % 2 else order[::-1]:
                    telemetry.configure(**settings[name])
                    started = time.perf_counter()
                    await engine.recall(question, search_type, top_k=args.top_k)
                    times[name].append(time.perf_counter() - started)
    telemetry.configure(enabled=True, tracer_provider=None, meter_provider=None)
    report: dict[str, Any] = {
        "docs": args.docs,
        "recalls_per_setting": len(times["off"]),
        "search_type": args.search_type or "routed",
        "embedder": "hash" if args.hash_embedder else "minilm",
    }
    for name, values in times.items():
        report[name] = {
            "p50_ms": round(percentile(values, 0.5) * 1000, 3),
            "mean_ms": round(statistics.fmean(values) * 1000, 3),
        }
    report["ratio_p50_hooks_over_off"] = round(
        report["hooks"]["p50_ms"] / report["off"]["p50_ms"], 4
    )
    # each query's hooks/off pair ran back to back: the median ratio of the pairs
    pairs = [h / o for h, o in zip(times["hooks"], times["off"], strict=True)]
    report["paired_median_ratio_hooks_over_off"] = round(statistics.median(pairs), 4)
    cost = hook_cost_us(20_000)
    report["hook_cost_us_per_recall"] = round(cost, 2)
    report["hook_cost_share_of_p50"] = round(cost / 1000 / report["off"]["p50_ms"], 5)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=200, help="paragraphs remembered")
    parser.add_argument("--queries", type=int, default=100, help="distinct questions")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the questions")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--search-type", default=None, help="a search type (default: routed)")
    parser.add_argument("--hash-embedder", action="store_true", help="the test embedder")
    parser.add_argument("--sdk", action="store_true", help="also time an SDK exporting to memory")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(measure(args, Path(tmp) / "data"))
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
