"""trace(summarize=True): with an LLM each call gets a one-line summary, stored with
the trace and searched with its text; the LLM never sees a secret, and a failing
LLM never breaks the traced function; offline the calls are recorded without a
summary, and a warning says so."""

from __future__ import annotations

import logging
import sqlite3

import pytest
from pydantic import SecretStr

from recall_engine import RecallEngine
from recall_engine.core.errors import InvalidInputError
from recall_engine.sessions.redact import REDACTED
from recall_engine.sessions.summaries import one_line
from recall_engine.sessions.traces import FILE_NAME, TraceStore
from recall_engine.testing import FakeLLMServer, ScriptedReply

SECRET = "sk-live-0123456789abcdefghijklmnop"
SUMMARY = "Reimbursement claim rejected: the receipt photo was unreadable."


def _summary_or_answer(payload: dict) -> str:
    text = " ".join(str(m.get("content", "")) for m in payload.get("messages", []))
    if "Recorded call:" in text and "submit_claim" in text:
        return SUMMARY + "\nA second line that is not kept."
    return "Checked the weather."


@pytest.fixture
def llm_engine(tmp_path, hash_embedder):
    with FakeLLMServer(default=_summary_or_answer) as server:
        engine = RecallEngine(
            tmp_path,
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test-llm-key-000111"),
            llm_max_retries=0,
        )
        yield engine, server
        engine.close()


async def test_a_summary_is_stored_and_found_by_its_own_words(llm_engine):
    engine, server = llm_engine

    @engine.trace(session_id="agent", summarize=True)
    def submit_claim(claim: str, api_key: str) -> str:
        raise ValueError(f"claim {claim}: image quality too low")

    @engine.trace(session_id="agent", summarize=True)
    async def weather(city: str) -> str:
        return f"sunny in {city}"

    with pytest.raises(ValueError, match="quality too low"):
        submit_claim("C-17", api_key=SECRET)
    assert await weather("Oslo") == "sunny in Oslo"

    # "reimbursement" and "unreadable" appear only in the LLM's summary.
    found = await engine.recall("reimbursement unreadable", scope=["trace"], session_id="agent")
    assert found[0].name.endswith("submit_claim") and found[0].status == "error"
    assert found[0].summary == SUMMARY  # one line: the rest of the reply is dropped
    assert found[0].arguments == {"claim": "C-17", "api_key": REDACTED}
    other = next(r for r in found if r.name.endswith("weather"))
    assert other.summary == "Checked the weather."

    prompts = [r.message("user") or "" for r in server.requests]
    assert len(prompts) == 2 and all("Recorded call:" in p for p in prompts)
    assert any("image quality too low" in p for p in prompts)
    assert not any(SECRET in p for p in prompts)  # the LLM sees the redacted record only


async def test_summaries_survive_a_restart(tmp_path, hash_embedder):
    with FakeLLMServer(default=_summary_or_answer) as server:
        options = {
            "embedder": hash_embedder,
            "llm_model": "openai/fake-model",
            "llm_api_base": server.base_url,
            "llm_api_key": SecretStr("test"),
        }
        engine = RecallEngine(tmp_path, **options)

        @engine.trace(session_id="s", summarize=True)
        def submit_claim(claim: str) -> str:
            return "queued"

        submit_claim("C-1")
        engine.close()  # lets the summary in flight finish
    async with RecallEngine(tmp_path, embedder=hash_embedder) as reopened:
        (hit,) = await reopened.recall("reimbursement", scope=["trace"], session_id="s")
        assert hit.summary == SUMMARY


async def test_a_failing_llm_costs_the_summary_only(tmp_path, hash_embedder, caplog):
    with FakeLLMServer(default=ScriptedReply.error(500)) as server:
        engine = RecallEngine(
            tmp_path,
            embedder=hash_embedder,
            llm_model="openai/fake-model",
            llm_api_base=server.base_url,
            llm_api_key=SecretStr("test"),
            llm_max_retries=0,
        )
        try:

            @engine.trace(session_id="s", summarize=True)
            def lookup(city: str) -> str:
                return f"{city}: 700k people"

            assert lookup("Lyon") == "Lyon: 700k people"
            with caplog.at_level(logging.WARNING, logger="recall_engine.sessions.summaries"):
                (hit,) = await engine.recall("Lyon", scope=["trace"], session_id="s")
            assert hit.summary is None and hit.result == "Lyon: 700k people"
            assert "without a summary" in caplog.text
            assert server.requests  # it was asked
        finally:
            engine.close()


async def test_offline_calls_are_recorded_without_a_summary_and_it_says_so(engine, caplog):
    with caplog.at_level(logging.WARNING, logger="recall_engine.engine.tracing"):

        @engine.trace(session_id="s", summarize=True)
        def lookup(city: str) -> str:
            return f"{city}: 700k people"

    assert "no LLM is configured (offline)" in caplog.text
    lookup("Ulm")
    (hit,) = await engine.recall("Ulm", scope=["trace"], session_id="s")
    assert hit.summary is None and hit.source == "trace"
    with pytest.raises(InvalidInputError, match="summarize"):
        engine.trace(session_id="s", summarize="yes")  # type: ignore[arg-type]


def test_a_traces_file_from_before_summaries_gains_the_column(tmp_path):
    old = sqlite3.connect(tmp_path / FILE_NAME)
    old.executescript(
        "CREATE TABLE traces (trace_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT "
        "NOT NULL, session_id TEXT NOT NULL, time REAL NOT NULL, name TEXT NOT NULL, status TEXT "
        "NOT NULL, arguments TEXT NOT NULL, result TEXT, error TEXT, duration_ms REAL NOT NULL);"
        "INSERT INTO traces VALUES ('t1', 'ten', 'u', 's', 1e12, 'f', 'ok', '{}', '1', NULL, 2.0);"
    )
    old.commit()
    old.close()
    store = TraceStore(tmp_path, ttl_s=1e9, clock=lambda: 1e12)
    try:
        (record,) = store.entries("ten", "u", "s")
        assert record.summary is None
        assert store.set_summary("ten", "u", "t1", "called f")
        assert store.entries("ten", "u", "s")[0].summary == "called f"
        assert not store.set_summary("ten", "other-user", "t1", "no")  # not theirs
    finally:
        store.close()


def test_one_line_keeps_the_first_line_within_the_cap():
    assert one_line("\n  first line \nsecond") == "first line"
    assert len(one_line("x" * 1000)) == 300
    assert one_line("   ") == ""


def test_close_twice_and_trace_after_close_are_harmless(llm_engine):
    engine, server = llm_engine

    @engine.trace(session_id="s", summarize=True)
    def submit_claim(claim: str) -> str:
        return "queued"

    submit_claim("C-2")
    engine.trace_summaries.close()
    engine.trace_summaries.close()
    before = len(server.requests)
    assert submit_claim("C-3") == "queued"  # recorded; no summary is asked for any more
    assert len(server.requests) == before
