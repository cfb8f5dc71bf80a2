"""Arguments a client gets wrong: each is a tool error that says what was wrong, nothing
changes, and the server goes on serving; and the listing says what a client needs."""

from __future__ import annotations

import re
from pathlib import Path

from recall_engine import RecallEngine
from recall_engine.core.limits import DEFAULT_MAX_QUERY_CHARS
from recall_engine.mcp import McpSettings
from recall_engine.mcp.tools import DEFAULT_TOOLS, MORE_TOOLS

from .conftest import HISTORY, connect, error_text

DOCS = Path(__file__).resolve().parents[2] / "docs"


async def test_a_time_is_an_iso_string_never_a_number(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    # JSON has no time type: 12345 was read as seconds after 1970, where recall()
    # and the HTTP API refuse it.
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text="Ann moved to Lyon on 1 May 2023.")
        calls = [
            ("recall", {"query": "Lyon", "as_of": 12345}, "as_of: Input should be a valid string"),
            ("recall", {"query": "Lyon", "as_of": 1.7e9}, "as_of: Input should be a valid string"),
            ("facts", {"subject": "Ann", "as_of": 12345}, "as_of: Input should be a valid string"),
            ("search_facts", {"query": "Lyon", "start": 12345}, "start: Input should be a valid"),
            ("search_facts", {"query": "Lyon", "end": "soon"}, "end must be a datetime or an ISO"),
            ("facts", {"subject": "Ann", "as_of": "soon"}, "as_of must be a datetime or an ISO"),
        ]
        for tool, arguments, says in calls:
            text = error_text(await s.raw(tool, arguments))
            assert "InvalidInputError: " in text and says in text, (tool, arguments, text)
        assert (await s.call("recall", query="Lyon", as_of="2023-06-01"))["results"]


async def test_an_argument_the_schema_refuses_is_named_in_one_line(
    mcp_engine: RecallEngine,
) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        text = error_text(await s.raw("recall", {"query": "x", "top_k": 1000}))
        assert text == (
            "Error executing tool recall: InvalidInputError: top_k: Input should be less "
            "than or equal to 100, got 1000."
        )
        text = error_text(await s.raw("remember", {"messages": [{"txt": "hi"}], "dataset": 5}))
        assert text.startswith("Error executing tool remember: InvalidInputError: messages.0")
        assert "dataset: Input should be a valid string, got 5." in text
        assert "\n" not in text and "pydantic" not in text
        assert (await s.call("status"))["datasets"] == []


async def test_a_fact_window_with_an_offset_is_read_in_utc(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text="Ann moved to Lyon on 1 May 2023.")

        async def found(**window: str) -> list[str]:
            facts = (await s.call("search_facts", query="Ann moved to Lyon", **window))["facts"]
            return [f["target"] for f in facts]

        # The fact's time is 2023-05-01T00:00 (UTC, as memory keeps times).
        assert await found(start="2023-05-01T01:00:00+02:00") == ["Lyon"]  # 30 April, 23:00
        assert await found(start="2023-04-30T20:00:00-05:00") == []  # 1 May, 01:00
        assert await found(end="2023-04-30T20:00:00-05:00") == ["Lyon"]


async def test_an_error_quoting_a_huge_argument_is_cut(mcp_engine: RecallEngine) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        await s.call("remember", text=HISTORY[0])
        text = error_text(await s.raw("forget", {"data_ids": [f"id-{i}" for i in range(20_000)]}))
    assert len(text) < 2_500
    assert text.startswith("Error executing tool forget: InvalidInputError: data_id: unknown")
    assert "characters left out" in text and "nothing was deleted" in text  # head and tail
    assert len(await mcp_engine.list_items()) == 1


async def test_an_empty_argument_is_named(mcp_engine: RecallEngine) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        for arguments, named in (
            ({"text": ""}, "text is empty"),
            ({"messages": []}, "messages is empty"),
            ({"text": "", "path": ""}, "text and path are empty"),
        ):
            text = error_text(await s.raw("remember", arguments))
            assert "exactly one of text, messages or path" in text and named in text, text
        text = error_text(await s.raw("forget", {"data_ids": []}))
        assert "got none (data_ids is empty)" in text


async def test_entity_and_fact_searches_bound_the_query_as_recall_does(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    too_long = "Lovelace " * (DEFAULT_MAX_QUERY_CHARS // 9 + 1)
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text=HISTORY[1])
        for tool in ("recall", "search_entities", "search_facts"):
            text = error_text(await s.raw(tool, {"query": too_long}))
            assert "InputTooLargeError" in text and "max_query_chars" in text, tool
        assert (await s.call("search_entities", query="Lovelace"))["entities"]


async def test_the_listing_says_what_a_client_needs(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        tools = {t.name: t for t in (await s.client.list_tools()).tools}
    for tool in tools.values():
        assert tool.description and "\n " not in tool.description, tool.name  # no indent
    recall = tools["recall"].input_schema["properties"]
    # recall()'s declared bounds travel with its options (the engine checks them too).
    assert _bounds(recall["recency_bias"]) == (0, 1)
    assert _bounds(recall["feedback_influence"]) == (0, 1)
    assert _bounds(recall["wide_search_top_k"]) == (1, 10_000)
    assert f"{DEFAULT_MAX_QUERY_CHARS:,} characters" in recall["query"]["description"]
    assert "CHUNKS_LEXICAL" in recall["query_type"]["description"]
    assert "100" in recall["top_k"]["description"]
    assert all(p.get("type") != "string" or "format" not in p for p in recall.values())
    window = tools["search_facts"].input_schema["properties"]["start"]["description"]
    assert "facts without one are left out" in window


def _bounds(schema: dict) -> tuple[object, object]:
    for part in [schema, *schema.get("anyOf", [])]:
        if "minimum" in part or "maximum" in part:
            return part.get("minimum"), part.get("maximum")
    return None, None


def test_the_mcp_page_names_every_tool() -> None:
    page = (DOCS / "mcp.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_]+)`", page))
    assert set(DEFAULT_TOOLS) | set(MORE_TOOLS) <= named
