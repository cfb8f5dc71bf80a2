"""recall-engine as an MCP server (``recall-engine mcp``): stdio or stateless streamable HTTP.

``create_server(engine, McpSettings(...))`` builds the SDK server for embedding in
an app; the names load lazily, so the command line stays quick to start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall_engine.mcp.server import choose_tools, create_server
    from recall_engine.mcp.tools import DEFAULT_TOOLS, MORE_TOOLS, McpSettings

__all__ = ["DEFAULT_TOOLS", "MORE_TOOLS", "McpSettings", "choose_tools", "create_server"]


def __getattr__(name: str) -> object:
    if name in ("choose_tools", "create_server"):
        from recall_engine.mcp import server

        return getattr(server, name)
    if name in ("DEFAULT_TOOLS", "MORE_TOOLS", "McpSettings"):
        from recall_engine.mcp import tools

        return getattr(tools, name)
    raise AttributeError(f"module 'recall_engine.mcp' has no attribute {name!r}")
