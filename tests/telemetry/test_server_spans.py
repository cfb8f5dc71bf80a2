"""The HTTP server's requests as SERVER spans that continue the caller's trace."""

from __future__ import annotations

import httpx
from opentelemetry.trace import SpanKind, StatusCode

from tests.remote_fixture import API_KEY, serve

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


async def test_a_request_is_a_server_span_around_the_recall(engine, otel):
    await engine.remember("Ada Lovelace wrote the first program.", dataset_name="notes")
    served = serve(engine)
    try:
        async with httpx.AsyncClient(base_url=served.url, timeout=60) as client:
            reply = await client.post(
                "/api/v1/recall",
                json={"query_text": "Who wrote the first program?", "top_k": 3},
                headers={
                    "Authorization": f"Bearer {API_KEY}",
                    "traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01",
                },
            )
            assert reply.status_code == 200
            missing = await client.post("/api/v1/engine/forget", json={"kwargs": {}})
            assert missing.status_code == 401
    finally:
        served.stop()
    (request,) = otel.named("POST /api/v1/recall")
    assert request.kind is SpanKind.SERVER
    assert format(request.context.trace_id, "032x") == TRACE_ID  # the caller's trace
    assert format(request.parent.span_id, "016x") == PARENT_ID
    assert request.attributes["http.route"] == "/api/v1/recall"
    assert request.attributes["http.response.status_code"] == 200
    assert "url.query" not in request.attributes
    (recall,) = otel.named("retrieval")
    assert recall.parent.span_id == request.context.span_id
    (refused,) = [s for s in otel.finished() if s.name.startswith("POST /api/v1/engine/")]
    route = refused.attributes["http.route"]
    assert refused.name == f"POST {route}" and "{" in route  # the template, not the path
    assert refused.attributes["http.response.status_code"] == 401
    assert refused.status.status_code is StatusCode.UNSET  # a client error, not the server's
    durations = {
        (p.attributes["http.route"], p.attributes["http.response.status_code"]): p.count
        for p in otel.points("http.server.request.duration")
    }
    assert durations == {("/api/v1/recall", 200): 1, (route, 401): 1}


async def test_metrics_are_recorded_without_a_tracer_provider(engine, otel):
    from recall_engine import telemetry

    telemetry.configure(tracer_provider=None)  # the API's proxy: nothing traces
    await engine.remember("Ada Lovelace wrote the first program.", dataset_name="notes")
    served = serve(engine)
    try:
        async with httpx.AsyncClient(base_url=served.url, timeout=60) as client:
            reply = await client.post(
                "/api/v1/recall",
                json={"query_text": "Who wrote the first program?", "query_type": "CHUNKS"},
                headers={"Authorization": f"Bearer {API_KEY}"},
            )
            assert reply.status_code == 200
    finally:
        served.stop()
    assert otel.finished() == []
    (request,) = otel.points("http.server.request.duration")
    assert request.attributes["http.route"] == "/api/v1/recall" and request.count == 1
    (recall,) = otel.points("recall_engine.recall.duration")
    assert recall.attributes["recall_engine.search_type"] == "CHUNKS"


async def test_an_unknown_method_is_other_so_clients_cannot_grow_the_metrics(engine, otel):
    served = serve(engine)
    try:
        async with httpx.AsyncClient(base_url=served.url, timeout=60) as client:
            for method in ("BREW", "WHEN", "GET"):
                await client.request(method, "/health")
    finally:
        served.stop()
    methods = sorted(
        p.attributes["http.request.method"] for p in otel.points("http.server.request.duration")
    )
    assert methods == ["GET", "_OTHER"]  # one series for every method it does not know
    others = [s for s in otel.finished() if s.attributes["http.request.method"] == "_OTHER"]
    assert {s.name for s in others} == {"HTTP /health"}
    assert sorted(s.attributes["http.request.method_original"] for s in others) == ["BREW", "WHEN"]
