"""remember() in OpenTelemetry: one ``remember`` span per ingest (children per stage:
chunking, embedding, extraction, commit) and the ingest metrics. No-ops unless an
SDK is set up (``recall_engine.telemetry``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from recall_engine.core.models import RememberResult
from recall_engine.telemetry import metrics
from recall_engine.telemetry.spans import AttributeValue, operation


@contextmanager
def remembering(
    *, tenant_id: str, dataset_id: str, items: int
) -> Iterator[Callable[[RememberResult], RememberResult]]:
    """The span and metrics of one ingest; the caller passes its result through the
    function this yields, which records what was stored and returns the result."""
    started = time.perf_counter()
    first: dict[str, AttributeValue | None] = {
        "recall_engine.tenant_id": tenant_id,
        "recall_engine.dataset_id": dataset_id,
        "recall_engine.ingest.items_in": items,
    }
    with operation("remember", operation="remember", attributes=first) as span:

        def done(result: RememberResult) -> RememberResult:
            span.update(
                {
                    "recall_engine.ingest.new_items": len(result.new_data_ids),
                    "recall_engine.ingest.skipped_items": len(result.skipped_data_ids),
                    "recall_engine.ingest.chunks": result.chunk_count,
                    "recall_engine.ingest.entities": result.entity_count,
                    "recall_engine.ingest.relations": result.relation_count,
                }
            )
            metrics.record_ingest(
                time.perf_counter() - started,
                items=len(result.new_data_ids),
                chunks=result.chunk_count,
                attributes={"recall_engine.dataset_id": dataset_id},
            )
            return result

        yield done
