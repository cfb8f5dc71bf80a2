"""One trace across processes: the remote client's requests as CLIENT spans whose
context the server continues, MCP tool calls as spans around the engine's work, and
the framework retrievers' sync calls under the caller's span."""

from __future__ import annotations

import pytest
from mcp import Client
from opentelemetry.trace import SpanKind, StatusCode

from recall_engine.mcp import McpSettings, create_server
from recall_engine.remote import RemoteRecallEngine
from recall_engine.telemetry.client import client_request
from tests.remote_fixture import API_KEY, serve

FACT = "The lighthouse keeper Marisol Quenby logs every storm in a blue notebook."
QUESTION = "Where does Marisol Quenby log every storm?"


async def test_a_remote_recall_is_one_trace_through_the_server(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    served = serve(engine)
    try:
        async with RemoteRecallEngine(served.url, api_key=API_KEY) as remote:
            otel.spans.clear()
            await remote.recall(QUESTION, top_k=3)
    finally:
        served.stop()
    (client,) = [s for s in otel.finished() if s.kind is SpanKind.CLIENT]
    assert client.name == "POST /api/v1/engine/recall"
    assert client.attributes["server.address"] == "127.0.0.1"
    assert client.attributes["http.response.status_code"] == 200
    (server,) = [s for s in otel.finished() if s.kind is SpanKind.SERVER]
    assert server.context.trace_id == client.context.trace_id
    assert server.parent.span_id == client.context.span_id  # continued from traceparent
    (recall,) = otel.named("retrieval")
    assert recall.parent.span_id == server.context.span_id
    assert QUESTION not in str(client.attributes)


async def test_a_refused_remote_call_marks_the_client_span_failed(engine, otel):
    served = serve(engine)
    try:
        async with RemoteRecallEngine(served.url, api_key="not-a-valid-key-at-all-000") as remote:
            with pytest.raises(Exception):  # noqa: B017 - the class is the remote mapping's
                await remote.recall(QUESTION)
    finally:
        served.stop()
    (client,) = [s for s in otel.finished() if s.kind is SpanKind.CLIENT]
    assert client.status.status_code is StatusCode.ERROR
    assert client.attributes["http.response.status_code"] == 401


async def test_a_sync_retriever_call_in_a_running_loop_continues_the_callers_trace(engine, otel):
    from recall_engine.integrations.langchain import RecallRetriever as LangChainRetriever
    from recall_engine.integrations.llamaindex import RecallRetriever as LlamaIndexRetriever

    await engine.remember(FACT, dataset_name="notes")
    app = otel.tracer("app")
    for retrieve in (
        LangChainRetriever(engine, query_type="CHUNKS").invoke,
        LlamaIndexRetriever(engine, query_type="CHUNKS").retrieve,
    ):
        otel.spans.clear()
        with app.start_as_current_span("handle request") as outer:
            retrieve(QUESTION)  # runs on a worker loop: the caller's context goes with it
        (recall,) = otel.named("retrieval")
        assert recall.parent is not None, retrieve
        assert recall.parent.span_id == outer.get_span_context().span_id, retrieve


def test_without_a_recording_tracer_no_header_is_sent():
    with client_request("POST", "http://127.0.0.1:1", "/api/v1/recall") as (span, headers):
        assert headers == {} and not span.recording


async def test_an_mcp_tool_call_is_a_span_around_the_recall(engine, otel):
    await engine.remember(FACT, dataset_name="notes")
    otel.spans.clear()
    async with Client(create_server(engine, McpSettings())) as client:
        result = await client.call_tool("recall", {"query": QUESTION})
        refused = await client.call_tool(
            "recall", {"query": QUESTION, "query_type": "NO_SUCH_TYPE"}
        )
    assert not result.is_error and refused.is_error
    ok, failed = otel.named("tools/call recall")
    assert ok.attributes["gen_ai.tool.name"] == "recall"
    assert ok.attributes["mcp.method.name"] == "tools/call"
    assert ok.status.status_code is StatusCode.UNSET
    (recall, *_) = otel.named("retrieval")
    assert recall.parent.span_id == ok.context.span_id
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["error.type"].endswith("Error")
    assert QUESTION not in str(ok.attributes)


TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


async def test_an_mcp_call_over_http_continues_the_callers_trace(engine, otel):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    from recall_engine.mcp.transports import http_app
    from tests.mcp.test_transports import start

    await engine.remember(FACT, dataset_name="notes")
    url, server, thread = start(http_app(engine, McpSettings(), auth=False))
    headers = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
    try:
        transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
        async with Client(transport) as client:  # type: ignore[arg-type]
            result = await client.call_tool("recall", {"query": QUESTION})
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    assert not result.is_error
    (tool,) = otel.named("tools/call recall")
    assert format(tool.context.trace_id, "032x") == TRACE_ID  # the caller's trace
    requests = {s.context.span_id: s for s in otel.finished() if s.kind is SpanKind.SERVER}
    assert tool.parent.span_id in requests  # under the HTTP request's span
