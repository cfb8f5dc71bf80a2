"""MCP tools that refuse arguments they do not declare, and say what was wrong in one line.

The SDK validates a call's arguments with a model that drops unknown keys, so
``remember {"text": ..., "tenant_id": "other"}`` would succeed in the key's own
tenant and report success for what was not done. A ``StrictTool`` lists its input
schema with ``additionalProperties: false`` and answers a call that names any
other argument with a tool error naming it, before the tool runs. The check reads
the tool's declared schema, so it holds for any schema a tool declares.

An argument that does not fit the schema (a wrong type, ``top_k`` over its bound) is
a tool error of one line per argument (``InvalidInputError: top_k: Input should be
less than or equal to 100, got 1000.``) rather than pydantic's report, which names
an internal model and a documentation URL.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import ToolAnnotations
from pydantic import ValidationError

from recall_engine.core.bounds import shown


class StrictTool(Tool):
    """A ``Tool`` whose calls may name only the arguments its input schema declares."""

    @classmethod
    def strict(
        cls, fn: Callable[..., object], *, name: str, annotations: ToolAnnotations | None = None
    ) -> StrictTool:
        """The tool of ``fn`` (as ``Tool.from_function``), closed to undeclared arguments."""
        doc = inspect.getdoc(fn) or ""  # one line per paragraph, not the source's indent
        text = "\n\n".join(" ".join(part.split()) for part in doc.split("\n\n"))
        tool = cls.from_function(fn, name=name, description=text, annotations=annotations)
        assert isinstance(tool, StrictTool)  # from_function builds cls(...)
        tool.parameters = {**tool.parameters, "additionalProperties": False}
        return tool

    def declared(self) -> list[str]:
        """The argument names the input schema declares, in its order."""
        return list(self.parameters.get("properties", {}))

    async def run(
        self, arguments: dict[str, object], context: Any, convert_result: bool = False
    ) -> object:
        """Run the tool (``Tool.run``) once every argument is a declared one.

        Raises:
            ToolError: an undeclared argument (the message names it and the
                declared ones), an argument that does not fit the input schema
                (``argument_errors``), or whatever ``Tool.run`` raises.
        """
        declared = self.declared()
        unknown = [name for name in arguments if name not in declared]
        if unknown:
            names = ", ".join(repr(str(n)[:60]) for n in unknown[:5])
            noun = "argument" if len(unknown) == 1 else "arguments"
            raise ToolError(
                f"Error executing tool {self.name}: InvalidInputError: {self.name} takes no "
                f"{noun} {names}; "
                f"its arguments are: {', '.join(declared) or 'none'}."
            )
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # the arguments, not the tool
                raise ToolError(
                    f"Error executing tool {self.name}: InvalidInputError: "
                    f"{argument_errors(exc.__cause__)}"
                ) from None
            raise


def argument_errors(error: ValidationError, *, most: int = 5) -> str:
    """One sentence per wrong argument (``top_k: Input should be ..., got 0.``), at
    most ``most`` of them, each value cut to 60 characters."""
    lines = []
    for problem in error.errors()[:most]:
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        message = problem["msg"].removeprefix("Value error, ").rstrip(".")
        said = problem["type"] == "missing" or " got " in message  # pydantic said it
        got = "" if said else f", got {shown(problem.get('input'), limit=60)}"
        lines.append(f"{where}: {message}{got}.")
    more = error.error_count() - most
    return " ".join(lines) + (f" ({more} more)" if more > 0 else "")
