"""MCP tools that refuse arguments they do not declare.

The SDK validates a call's arguments with a model that drops unknown keys, so
``remember {"text": ..., "tenant_id": "other"}`` would succeed in the key's own
tenant and report success for what was not done. A ``StrictTool`` lists its input
schema with ``additionalProperties: false`` and answers a call that names any
other argument with a tool error naming it, before the tool runs. The check reads
the tool's declared schema, so it holds for any schema a tool declares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import ToolAnnotations


class StrictTool(Tool):
    """A ``Tool`` whose calls may name only the arguments its input schema declares."""

    @classmethod
    def strict(
        cls, fn: Callable[..., object], *, name: str, annotations: ToolAnnotations | None = None
    ) -> StrictTool:
        """The tool of ``fn`` (as ``Tool.from_function``), closed to undeclared arguments."""
        tool = cls.from_function(fn, name=name, annotations=annotations)
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
                declared ones), or whatever ``Tool.run`` raises.
        """
        declared = self.declared()
        unknown = [name for name in arguments if name not in declared]
        if unknown:
            names = ", ".join(repr(str(n)[:60]) for n in unknown[:5])
            noun = "argument" if len(unknown) == 1 else "arguments"
            raise ToolError(
                f"InvalidInputError: {self.name} takes no {noun} {names}; "
                f"its arguments are: {', '.join(declared) or 'none'}."
            )
        return await super().run(arguments, context, convert_result=convert_result)
