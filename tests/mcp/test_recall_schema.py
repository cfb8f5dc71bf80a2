"""The MCP ``recall`` tool's input schema is recall()'s declared options
(``core.recall_options``): a subset of their names, with their descriptions."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.core.recall_options import option_fields
from recall_engine.mcp import McpSettings

from .conftest import connect


async def test_recall_tool_parameters_are_declared_options(mcp_engine: RecallEngine) -> None:
    declared = option_fields()
    async with connect(mcp_engine, McpSettings()) as s:
        listed = await s.client.list_tools()
    recall = next(t for t in listed.tools if t.name == "recall")
    properties = recall.input_schema["properties"]
    # "query" is query_text (also accepted under that name by POST /api/v1/recall)
    assert set(properties) - {"query", "query_type"} <= set(declared)
    shared = (set(properties) & set(declared)) - {"top_k"}  # the tool's own cap on top_k
    assert shared >= {"datasets", "session_id", "only_context", "include_references", "scope"}
    for name in shared:
        assert properties[name]["description"] == declared[name][1].description, name
