"""The ``facts`` tool: a subject's facts with their validity, as the engine gives them."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.mcp import McpSettings
from tests.mcp.conftest import connect, error_text

ANN = [
    {"id": "a1", "speaker": "Ann", "text": "I live in Lyon.", "timestamp": "2023-01-05T10:00:00"},
    {
        "id": "a2",
        "speaker": "Ann",
        "text": "I moved to Paris last week, I live there now.",
        "timestamp": "2024-03-01T09:00:00",
    },
]


async def test_facts_gives_current_and_superseded_facts(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        for message in ANN:
            await s.call("remember", messages=[message], dataset="ann")
        every = await s.call("facts", subject="Ann")
        assert every["subject"] == "Ann"
        by = {(f["predicate"], f["object"]): f for f in every["facts"]}
        lyon = by[("lives_in", "Lyon")]
        assert not lyon["current"] and lyon["valid_until"].startswith("2024-03-01")
        assert [r["object"] for r in lyon["superseded_by"]] == ["Paris"]
        now = await s.call("facts", subject="Ann", history=False, datasets=["ann"])
        assert {f["object"] for f in now["facts"]} == {"Paris"}
        then = await s.call("facts", subject="Ann", as_of="2023-06-01")
        assert [f["object"] for f in then["facts"]] == ["Lyon"]


async def test_facts_refuses_bad_and_undeclared_arguments(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", messages=[ANN[0]], dataset="ann")
        assert "subject" in error_text(await s.raw("facts", {"subject": "  "}))
        assert "tenant_id" in error_text(await s.raw("facts", {"subject": "Ann", "tenant_id": "x"}))
        assert "nope" in error_text(await s.raw("facts", {"subject": "Ann", "datasets": ["nope"]}))
