"""The MCP ``recall`` tool's input schema is recall()'s declared options
(``core.recall_options``): all of them but the local-only ones and the tenant, with
their descriptions; an option the tool did not always take reaches the engine."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.core.recall_options import option_fields
from recall_engine.mcp import McpSettings
from recall_engine.server.app import LOCAL_ONLY_OPTIONS

from .conftest import connect


async def test_recall_tool_parameters_are_the_declared_options(mcp_engine: RecallEngine) -> None:
    declared = option_fields()
    async with connect(mcp_engine, McpSettings()) as s:
        listed = await s.client.list_tools()
    recall = next(t for t in listed.tools if t.name == "recall")
    properties = recall.input_schema["properties"]
    # "query" is query_text (also accepted under that name by POST /api/v1/recall)
    assert set(properties) - {"query", "query_type"} == (
        set(declared) - LOCAL_ONLY_OPTIONS - {"tenant_id"}
    )
    for name in set(properties) - {"query", "query_type", "top_k"}:  # top_k: the tool's own cap
        assert properties[name]["description"] == declared[name][1].description, name


async def test_metadata_filters_reach_the_engine(mcp_engine: RecallEngine) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        await s.call(
            "remember", text="The billing service runs on Postgres.", metadata={"team": "billing"}
        )
        await s.call(
            "remember", text="The search service runs on Postgres too.", metadata={"team": "search"}
        )
        every = await s.call("recall", query="Postgres service", query_type="CHUNKS", top_k=5)
        billing = await s.call(
            "recall",
            query="Postgres service",
            query_type="CHUNKS",
            top_k=5,
            metadata_filters={"team": "billing"},
        )
    assert len(every["results"]) == 2
    assert len(billing["results"]) == 1
    assert "billing" in str(billing["results"][0])
