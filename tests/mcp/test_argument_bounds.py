"""Argument bounds reach the MCP tools: an argument over its bound (``core.bounds``)
is a tool error naming it and the limit, never echoing it whole."""

from __future__ import annotations

from recall_engine import RecallEngine
from recall_engine.core.bounds import MAX_FEEDBACK_CHARS, MAX_SUBJECT_CHARS, MAX_SYSTEM_PROMPT_CHARS
from recall_engine.mcp import McpSettings

from .conftest import connect, error_text


async def test_tool_arguments_over_their_bounds_are_named(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        calls = [
            ("facts", {"subject": "A" * 1_000_000}, "subject", MAX_SUBJECT_CHARS),
            (
                "add_feedback",
                {"session_id": "s1", "qa_id": "qa", "score": 3, "text": "t" * 20_000},
                "text",
                MAX_FEEDBACK_CHARS,
            ),
            (
                "recall",
                {"query": "tea", "system_prompt": "p" * (MAX_SYSTEM_PROMPT_CHARS + 1)},
                "system_prompt",
                MAX_SYSTEM_PROMPT_CHARS,
            ),
        ]
        for tool, arguments, what, limit in calls:
            text = error_text(await s.raw(tool, arguments))
            assert f"InvalidInputError: {what} holds " in text, (tool, text[:300])
            assert f"at most {limit:,}" in text and len(text) < 500, (tool, text[:300])
