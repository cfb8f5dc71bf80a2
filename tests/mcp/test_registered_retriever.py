"""A search type registered outside the package is reachable through the MCP recall tool."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.mcp import McpSettings
from tests.custom_retriever import NAME
from tests.mcp.conftest import connect


async def test_the_recall_tool_runs_a_registered_type(mcp_engine: RecallEngine, registered) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        await s.call("remember", text="Postgres runs billing.", dataset="docs")
        found = await s.call("recall", query="postgres billing", query_type=NAME.lower(), top_k=3)
        refused = await s.raw("recall", {"query": "billing", "query_type": "NOPE"})
    assert found["route"] is None
    assert [r["search_type"] for r in found["results"]] == [NAME]
    assert found["results"][0]["kind"] == "shortest"
    assert refused.is_error and NAME in str(refused.content[0].text)  # type: ignore[union-attr]
