"""Every MCP tool refuses an argument it does not declare, with a tool error that
names it, and does nothing: no false success."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.mcp import McpSettings
from recall_engine.mcp.tools import DEFAULT_TOOLS

from .conftest import HISTORY, connect, error_text, payload


async def test_every_input_schema_is_closed(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        listed = (await s.client.list_tools()).tools
    assert len(listed) > len(DEFAULT_TOOLS)
    for tool in listed:
        assert tool.input_schema.get("additionalProperties") is False, tool.name


async def test_remember_with_an_undeclared_tenant_is_refused_and_writes_nothing(
    mcp_engine: RecallEngine,
) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        refused = await s.raw("remember", {"text": HISTORY[0], "tenant_id": "globex"})
        text = error_text(refused)
        status = await s.call("status")
    assert "InvalidInputError" in text and "'tenant_id'" in text
    assert "text" in text.split("arguments are:")[1]  # says what it does take
    assert await mcp_engine.list_items() == []
    assert await mcp_engine.list_items(tenant_id="globex") == []
    assert all(d["items"] == 0 for d in status["datasets"])


async def test_recall_and_forget_refuse_undeclared_arguments(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        stored = await s.call("remember", text=HISTORY[1])
        asked = await s.raw("recall", {"query": "Lovelace", "tenant_id": "globex"})
        assert "'tenant_id'" in error_text(asked)
        several = await s.raw("forget", {"data_ids": stored["data_ids"], "all": True, "x": 1})
        assert "arguments 'all', 'x'" in error_text(several)
        # The refused forget deleted nothing; the same call without them works.
        kept = payload(await s.raw("recall", {"query": "Lovelace", "top_k": 1}))
        assert kept["results"]
        status = await s.raw("status", {"verbose": True})
        assert "status takes no argument 'verbose'" in error_text(status)
