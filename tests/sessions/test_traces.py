"""Agent traces: @engine.trace records calls, recall(scope=["trace"]) finds them,
secrets never reach the disk, and the traces that feed an answer are reported."""

from __future__ import annotations

import json

import pytest
from pydantic import SecretStr

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.errors import InvalidInputError, UserNotFoundError
from recall_engine.core.models import ResponseSessionContextEntry, ResponseTraceEntry
from recall_engine.sessions.redact import REDACTED, Redactor
from recall_engine.testing import FakeLLMServer

SECRET = "sk-live-0123456789abcdefghijklmnop"


def _traced_tools(engine: RecallEngine, session_id: str = "agent-1"):
    @engine.trace(session_id=session_id)
    def parse_invoice(path: str, api_key: str) -> dict[str, object]:
        if path.endswith(".bad"):
            raise ValueError(f"invoice {path} has no total line")
        return {"total": 41.5, "currency": "EUR"}

    @engine.trace(session_id=session_id, name="fetch_weather")
    async def weather(city: str) -> str:
        return f"sunny in {city}"

    return parse_invoice, weather


async def test_successful_and_failing_calls_are_found_with_source_trace(engine):
    parse_invoice, weather = _traced_tools(engine)
    assert parse_invoice("march.pdf", api_key=SECRET) == {"total": 41.5, "currency": "EUR"}
    with pytest.raises(ValueError, match="no total line"):
        parse_invoice("april.bad", api_key=SECRET)
    assert await weather("Oslo") == "sunny in Oslo"
    assert parse_invoice.__name__ == "parse_invoice"  # functools.wraps

    found = await engine.recall("what failed?", scope=["trace"], session_id="agent-1")
    assert found and all(isinstance(r, ResponseTraceEntry) for r in found)
    assert {r.source for r in found} == {"trace"}
    by_status = {(r.name.split(".")[-1], r.status) for r in found}
    assert ("parse_invoice", "ok") in by_status and ("parse_invoice", "error") in by_status
    assert found[0].status == "error"  # the question's own word ranks the failure first
    assert "ValueError" in (found[0].error or "") and "failed" in found[0].text
    assert found[0].arguments == {"path": "april.bad", "api_key": REDACTED}
    ok = next(r for r in found if r.status == "ok" and r.name.endswith("parse_invoice"))
    assert ok.result == {"total": 41.5, "currency": "EUR"} and ok.duration_ms >= 0
    weather_hit = await engine.recall("weather in Oslo", scope=["trace"], session_id="agent-1")
    assert weather_hit[0].name == "fetch_weather" and weather_hit[0].result == "sunny in Oslo"


async def test_no_secret_reaches_the_data_dir(tmp_path, hash_embedder):
    engine = RecallEngine(
        tmp_path, embedder=hash_embedder, llm_api_key=SecretStr("engine-own-key-998877")
    )
    try:

        @engine.trace(session_id="s")
        def call(config: dict[str, object], note: str, db_password: str) -> str:
            return f"used {note}"

        call(
            {"nested": {"Authorization": "Bearer abcdefghijklmnop"}, "token": "t0k3n-value-1"},
            note=f"key {SECRET} and engine-own-key-998877",
            db_password="hunter2-hunter2",
        )
        (hit,) = await engine.recall("used", scope=["trace"], session_id="s")
        assert hit.arguments["db_password"] == REDACTED
        assert hit.arguments["config"]["token"] == REDACTED
        assert hit.arguments["config"]["nested"]["Authorization"] == REDACTED
    finally:
        engine.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in (SECRET, "abcdefghijklmnop", "t0k3n-value-1", "hunter2", "998877"):
                assert secret.encode() not in data, (path.name, secret)


def test_values_are_capped_and_redacted_by_shape():
    redactor = Redactor(("api_key",), max_chars=200)
    text = redactor.dumps({"blob": "x" * 10_000, "items": list(range(500))})
    assert len(text) <= 260 and json.loads(text)  # still JSON: a cut text is a JSON string
    assert redactor.plain({"OpenAI-API-Key": "abc"}) == {"OpenAI-API-Key": REDACTED}
    assert redactor.plain("auth: Bearer eyJhbGciOiJIUzI1NiJ9.payloadpayload.signature1") == (
        f"auth: {REDACTED}"
    )
    assert redactor.plain({"tokens_used": 12}) == {"tokens_used": 12}  # not a secret name


async def test_traces_belong_to_their_user_tenant_and_session(engine):
    bob = await engine.create_user("bob")

    @engine.trace(session_id="shared")
    def mine(x: int) -> int:
        return x

    @engine.trace(session_id="shared", user=bob)
    def bobs(x: int) -> int:
        return x * 2

    mine(1)
    bobs(2)
    own = await engine.recall("call", scope=["trace"], session_id="shared")
    assert [r.name.split(".")[-1] for r in own] == ["mine"]
    theirs = await engine.recall("call", scope=["trace"], session_id="shared", user=bob)
    assert [r.name.split(".")[-1] for r in theirs] == ["bobs"]
    assert await engine.recall("call", scope=["trace"], session_id="other") == []
    other_tenant = await engine.recall(
        "call", scope=["trace"], session_id="shared", tenant_id="elsewhere"
    )
    assert other_tenant == []


async def test_scope_is_checked_and_combines_sources(engine):
    with pytest.raises(InvalidInputError, match="unknown source"):
        await engine.recall("q", scope=["graph", "memory"], session_id="s")
    with pytest.raises(InvalidInputError, match="session_id"):
        await engine.recall("q", scope=["trace"])
    with pytest.raises(InvalidInputError, match="non-empty list"):
        await engine.recall("q", scope=[], session_id="s")
    with pytest.raises(InvalidInputError, match="session_id"):
        engine.trace(session_id="")
    with pytest.raises(UserNotFoundError):
        engine.trace(session_id="s", user="no-such-user")

    @engine.trace(session_id="s")
    def lookup_city(city: str) -> str:
        return f"{city} has 700k people"

    lookup_city("Ulm")
    await engine.remember(
        [Document(text="Ulm lies on the Danube and has a tall minster.", title="ulm")]
    )
    results = await engine.recall(
        "Ulm", SearchType.CHUNKS, scope=["trace", "graph"], session_id="s"
    )
    assert [r.source for r in results][:2] == ["trace", "graph"]
    graph_only = await engine.recall("Ulm", SearchType.CHUNKS, scope=["graph"])
    assert {r.source for r in graph_only} == {"graph"}


async def test_traces_feed_the_answer_as_session_context(tmp_path, hash_embedder):
    with FakeLLMServer() as server:
        engine = RecallEngine(
            tmp_path,
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test"),
            llm_max_retries=0,
        )
        try:
            await engine.remember([Document(text="Invoices are due in 30 days.", title="terms")])

            @engine.trace(session_id="s")
            def pay_invoice(invoice: str) -> str:
                raise RuntimeError("bank rejected the transfer")

            with pytest.raises(RuntimeError):
                pay_invoice("INV-7")
            server.enqueue("The transfer for INV-7 was rejected by the bank.")
            results = await engine.recall(
                "Why was INV-7 not paid?",
                SearchType.RAG_COMPLETION,
                scope=["graph", "trace"],
                session_id="s",
            )
            prompt = server.last_request.message("user")
            assert "bank rejected the transfer" in prompt
            context = [r for r in results if isinstance(r, ResponseSessionContextEntry)]
            assert len(context) == 1 and context[0].source == "session_context"
            assert "bank rejected the transfer" in context[0].text
            assert context[0].trace_ids and results[-1] is context[0]
            assert [r.source for r in results] == ["trace", "graph", "session_context"]
        finally:
            engine.close()
