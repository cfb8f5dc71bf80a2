"""recall() and remember() as OpenTelemetry spans and metrics, read back from the
SDK's in-memory exporters."""

from __future__ import annotations

import json

import pytest
from opentelemetry.trace import SpanKind, StatusCode

from recall_engine import RecallPreconditionError, SearchType, telemetry

FACT = "The lighthouse keeper Marisol Quenby logs every storm in a blue notebook."
QUESTION = "Where does Marisol Quenby log every storm?"

STAGES = ["scope", "session", "route", "retrieve", "narrow", "tense", "feedback", "coverage",
          "answer", "session_write", "references", "tag"]  # fmt: skip


def _values(spans) -> list[str]:
    """Every attribute value and status text of the spans, as text."""
    out = []
    for span in spans:
        out += [json.dumps(v, default=str) for v in (span.attributes or {}).values()]
        out.append(span.status.description or "")
        out += [json.dumps(dict(e.attributes or {}), default=str) for e in span.events]
    return out


async def test_a_routed_recall_is_one_trace_with_a_span_per_stage(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    otel.spans.clear()
    results = await engine.recall(QUESTION, top_k=5)
    (root,) = otel.named("retrieval")
    assert root.parent is None and root.kind is SpanKind.INTERNAL
    spans = otel.finished()
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}  # one trace
    children = sorted(
        (s for s in spans if s.parent and s.parent.span_id == root.context.span_id),
        key=lambda s: s.start_time,
    )
    assert [s.name for s in children] == [f"recall.{name}" for name in STAGES]
    (embed,) = otel.named("recall.embed")
    (retrieve,) = otel.named("recall.retrieve")
    assert embed.parent.span_id == retrieve.context.span_id
    attributes = root.attributes
    assert attributes["gen_ai.operation.name"] == "retrieval"
    assert attributes["gen_ai.retrieval.top_k"] == 5
    assert attributes["recall_engine.routed"] is True
    decision = results[0].metadata["route"]
    assert attributes["recall_engine.route.search_type"] == decision["search_type"]
    assert attributes["recall_engine.search_type"] == results[0].search_type.value
    assert list(attributes["recall_engine.route.rules"]) == decision["fired"]
    assert attributes["recall_engine.result.count"] == len(results)
    assert attributes["recall_engine.coverage"] == results[0].metadata["coverage"]
    assert attributes["gen_ai.data_source.id"] == results[0].dataset_id
    assert root.status.status_code is StatusCode.UNSET


async def test_query_text_and_memory_content_stay_out_unless_turned_on(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    await engine.recall(QUESTION, SearchType.CHUNKS, top_k=3)
    values = " ".join(_values(otel.finished()))
    assert "Marisol" not in values and "notebook" not in values
    assert "gen_ai.retrieval.query.text" not in otel.named("retrieval")[0].attributes

    otel.spans.clear()
    telemetry.configure(capture_content=True)
    results = await engine.recall(QUESTION, SearchType.CHUNKS, top_k=3)
    (root,) = otel.named("retrieval")
    assert root.attributes["gen_ai.retrieval.query.text"] == QUESTION
    documents = json.loads(root.attributes["gen_ai.retrieval.documents"])
    assert documents[0]["content"] == results[0].text and FACT in results[0].text
    assert documents[0]["score"] == results[0].score


async def test_remember_has_a_span_per_ingest_stage(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    (root,) = otel.named("remember")
    assert root.attributes["recall_engine.ingest.new_items"] == 1
    assert root.attributes["recall_engine.ingest.chunks"] >= 1
    names = {s.name for s in otel.finished() if s.context.trace_id == root.context.trace_id}
    assert {"remember.chunking", "remember.embedding", "remember.extraction",
            "remember.commit"} <= names  # fmt: skip
    (extraction,) = otel.named("remember.extraction")  # ran in the extractor's thread
    assert extraction.parent.span_id == root.context.span_id
    (items,) = otel.points("recall_engine.ingest.items")
    assert items.value == 1
    (chunks,) = otel.points("recall_engine.ingest.chunks")
    assert chunks.value == root.attributes["recall_engine.ingest.chunks"]


async def test_recall_latency_is_measured_by_search_type(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    await engine.recall(QUESTION, SearchType.CHUNKS, top_k=3)
    await engine.recall(QUESTION, SearchType.CHUNKS_LEXICAL, top_k=3)
    await engine.recall(QUESTION, SearchType.CHUNKS, top_k=3)
    counts = {
        p.attributes["recall_engine.search_type"]: p.count
        for p in otel.points("recall_engine.recall.duration")
    }
    assert counts == {"CHUNKS": 2, "CHUNKS_LEXICAL": 1}


async def test_a_failed_recall_is_counted_by_class_and_keeps_its_message_out(engine, otel):
    with pytest.raises(RecallPreconditionError):
        await engine.recall(QUESTION)
    (root,) = otel.named("retrieval")
    assert root.status.status_code is StatusCode.ERROR
    assert root.attributes["error.type"] == "RecallPreconditionError"
    assert not root.events  # no exception event: a message may quote the caller's input
    (error,) = otel.points("recall_engine.errors")
    assert error.value == 1
    assert dict(error.attributes) == {
        "error.type": "RecallPreconditionError",
        "recall_engine.operation": "recall",
    }


async def test_a_session_cache_answer_counts_as_a_cache_hit(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    await engine.recall(QUESTION, SearchType.RAG_COMPLETION, session_id="s", top_k=1)
    assert otel.points("recall_engine.cache.hits") == []
    (hit,) = await engine.recall(QUESTION, session_id="s")
    assert hit.source == "session"
    (point,) = otel.points("recall_engine.cache.hits")
    assert point.value == 1 and dict(point.attributes) == {"recall_engine.cache": "session"}
    assert otel.named("retrieval")[-1].attributes["recall_engine.session_cache.hit"] is True


async def test_disabled_telemetry_opens_no_span(engine, otel):
    telemetry.configure(enabled=False)
    await engine.remember(FACT, dataset_name="notes")
    await engine.recall(QUESTION, SearchType.CHUNKS, top_k=3)
    assert otel.finished() == []
    assert otel.points("recall_engine.recall.duration") == []
