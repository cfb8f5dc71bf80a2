"""An MCP server over a fresh engine, reached through the SDK's in-memory client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import CallToolResult

from recall_engine import RecallEngine
from recall_engine.mcp import MORE_TOOLS, McpSettings, create_server
from recall_engine.mcp.tools import DEFAULT_TOOLS

HISTORY = [
    "Grace Hopper joined Remington Rand in 1949.",
    "Ada Lovelace worked with Charles Babbage in London in 1843.",
    "Steve Jobs founded Apple Computer Company in 1976.",
]


def payload(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful call (its text block holds the same JSON)."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    text = result.content[0].text  # type: ignore[union-attr]
    assert json.loads(text) == result.structured_content
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    return str(result.content[0].text)  # type: ignore[union-attr]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    root.mkdir()
    return root


@pytest.fixture
async def mcp_engine(tmp_path: Path, hash_embedder) -> AsyncIterator[RecallEngine]:
    eng = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    yield eng
    eng.close()


class Session:
    """An in-memory client session: ``call`` answers a tool's structured content,
    ``raw`` its whole result."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        return payload(await self.client.call_tool(tool, arguments))

    async def raw(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        return await self.client.call_tool(tool, arguments)


@asynccontextmanager
async def connect(engine: RecallEngine, settings: McpSettings) -> AsyncIterator[Session]:
    """Opened and closed inside one test (anyio cancel scopes must not span fixture tasks)."""
    async with Client(create_server(engine, settings)) as client:
        yield Session(client)


@pytest.fixture
def every_tool(files: Path) -> McpSettings:
    """Every tool listed (--tools all), files readable under ``files``."""
    return McpSettings(files_root=files, tools=(*DEFAULT_TOOLS, *MORE_TOOLS))
