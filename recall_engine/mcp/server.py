"""The MCP server: the chosen tools of ``RecallTools`` on an SDK ``MCPServer``.

A library error in a tool comes back as an MCP tool error (``isError``) whose text
names the error's class and carries its message, with the server's data dir and
files root replaced by placeholders; anything else is reported by the SDK as
``Error executing tool <name>`` with the trace kept in the server's log.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import ToolAnnotations

from recall_engine.core.errors import InvalidInputError, RecallEngineError
from recall_engine.engine import RecallEngine
from recall_engine.mcp.strict import StrictTool
from recall_engine.mcp.tools import (
    DEFAULT_TOOLS,
    MORE_TOOLS,
    McpSettings,
    RecallTools,
    package_version,
)
from recall_engine.telemetry.spans import operation

INSTRUCTIONS = (
    "Long-term memory for this agent. remember() stores text, conversations or files; "
    "recall() answers with ranked results, each tagged with its source and the ids of the "
    "data items, chunks and messages it rests on; forget() deletes; status() lists datasets."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
DELETES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
ANNOTATIONS = {"remember": WRITES, "forget": DELETES, "add_feedback": WRITES}


def choose_tools(spec: str) -> tuple[str, ...]:
    """``default``, ``all``, or a comma list of tool names (``default`` may be one of them).

    Raises:
        InvalidInputError: an unknown tool name.
    """
    known = (*DEFAULT_TOOLS, *MORE_TOOLS)
    chosen: list[str] = []
    for word in (w.strip() for w in spec.split(",")):
        names = {"default": DEFAULT_TOOLS, "all": known}.get(word, (word,))
        for name in names:
            if name not in known:
                raise InvalidInputError(
                    f"--tools: unknown tool {name!r}; use default, all, or names from "
                    f"{', '.join(known)}."
                )
            if name not in chosen:
                chosen.append(name)
    return tuple(chosen)


def create_server(engine: RecallEngine, settings: McpSettings | None = None) -> MCPServer:
    """An MCP server listing ``settings.tools`` (default: remember, recall, forget, status),
    each refusing arguments its input schema does not declare (``mcp.strict``)."""
    settings = settings or McpSettings()
    tools = RecallTools(engine, settings)
    hidden = _hidden_paths(engine, tools)
    listed: list[Tool] = [
        StrictTool.strict(
            _tool_errors(tools.tool(name), hidden, name),
            name=name,
            annotations=ANNOTATIONS.get(name, READ_ONLY),
        )
        for name in settings.tools
    ]
    return MCPServer(
        "recall-engine",
        version=package_version(),
        instructions=INSTRUCTIONS,
        log_level=settings.log_level,
        tools=listed,
    )


def _hidden_paths(engine: RecallEngine, tools: RecallTools) -> list[tuple[str, str]]:
    data_dir = engine.config.data_dir
    pairs = [
        (str(data_dir.resolve()), "<data_dir>"),
        (str(data_dir), "<data_dir>"),
        (str(tools.root), "<files_root>"),
    ]
    # Longest first, so a path inside another is replaced whole.
    return sorted({p for p in pairs if p[0] not in ("", ".")}, key=lambda p: -len(p[0]))


MAX_MESSAGE_CHARS = 2_000
"""The most an error's text may hold: a message that quotes the caller's input (20,000
unknown ids) keeps its start and its end, which says what to do."""


def public_message(exc: BaseException, hidden: Sequence[tuple[str, str]]) -> str:
    """``ClassName: message`` with server paths replaced by placeholders, and the middle
    of a message over ``MAX_MESSAGE_CHARS`` left out."""
    text = str(exc)
    for path, placeholder in hidden:
        text = text.replace(path, placeholder)
    if len(text) > MAX_MESSAGE_CHARS:
        head, tail = MAX_MESSAGE_CHARS * 3 // 4, MAX_MESSAGE_CHARS // 4
        cut = len(text) - head - tail
        text = f"{text[:head]} ... ({cut:,} characters left out) ... {text[-tail:]}"
    return f"{type(exc).__name__}: {text}"


def _tool_errors(
    method: Callable[..., Awaitable[object]], hidden: Sequence[tuple[str, str]], name: str
) -> Callable[..., Awaitable[object]]:
    """``method`` with library (and ValueError / TypeError) failures as ToolErrors, each
    call an OpenTelemetry span ``tools/call {name}`` when telemetry records (MCP's
    semantic conventions; arguments and results stay out of it)."""
    attributes = {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
    }

    @functools.wraps(method)
    async def call(*args: object, **kwargs: object) -> object:
        try:
            with operation(f"tools/call {name}", operation="mcp", attributes=attributes):
                return await method(*args, **kwargs)
        except (RecallEngineError, ValueError, TypeError) as exc:
            raise ToolError(public_message(exc, hidden)) from None

    return call
