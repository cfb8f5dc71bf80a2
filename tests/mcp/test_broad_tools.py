"""BROAD and GRAPH_REPORT through the MCP recall tool."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.mcp import McpSettings

from .conftest import connect


async def test_broad_and_graph_report_through_mcp(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        messages = [
            {"id": "D1:1", "speaker": "Ann", "text": "I adopted a cat named Luna."},
            {"id": "D1:2", "speaker": "Ann", "text": "I got a puppy called Max."},
        ]
        await s.call("remember", messages=messages, dataset="chat")
        counted = await s.call("recall", query="How many pets does Ann have?", datasets=["chat"])
        assert counted["route"]["search_type"] == "BROAD"
        first = counted["results"][0]
        assert first["search_type"] == "BROAD" and first["text"].startswith("2 pets")
        assert {src["message_ids"][0] for src in first["sources"]} == {"D1:1", "D1:2"}
        report = await s.call("recall", query="anything", query_type="graph_report")
        assert report["results"][0]["search_type"] == "GRAPH_REPORT"
