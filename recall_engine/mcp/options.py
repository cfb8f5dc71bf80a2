"""The MCP ``recall`` tool's parameters: recall()'s declared options, as JSON carries them.

Every option ``core.recall_options`` declares is a keyword parameter of the tool, with
its default, bounds and description, but those that cannot travel in JSON
(``LOCAL_ONLY_OPTIONS``) and the tenant (the caller's key's). The SDK builds the tool's
input schema from these parameters and validates a call against it; the engine then
checks the values as it checks any call. A time travels as an ISO 8601 string: a
schema type of ``datetime`` would let the SDK read a number as seconds since 1970,
which recall() refuses.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated

from pydantic import Field
from pydantic.fields import FieldInfo

from recall_engine.core.recall_options import json_option_fields
from recall_engine.server.app import LOCAL_ONLY_OPTIONS

# recall()'s options the recall tool does not take: those that cannot travel in JSON
# (LOCAL_ONLY_OPTIONS), and the tenant, which is the caller's key's (``tenant``).
NOT_TOOL_OPTIONS = LOCAL_ONLY_OPTIONS | {"tenant_id"}
# Declared by the tool itself: its own cap and default for top_k.
TOOL_OWN_OPTIONS = frozenset({"top_k"})


def recall_tool_options() -> dict[str, tuple[object, FieldInfo]]:
    """The recall tool's parameters beyond ``query``, ``query_type`` and ``top_k``.

    Returns:
        Every option recall() declares (``core.recall_options``) but those in
        ``NOT_TOOL_OPTIONS`` and ``TOOL_OWN_OPTIONS``: name -> (its type as JSON
        carries it, without the engine's checks; its ``Field``, bounds included).
    """
    return json_option_fields(NOT_TOOL_OPTIONS | TOOL_OWN_OPTIONS)


def with_options(
    method: Callable[..., Awaitable[object]], described: Mapping[str, str] | None = None
) -> Callable[..., Awaitable[object]]:
    """``method`` (which takes ``**options``) with a keyword parameter per recall tool
    option in its signature, with the option's type, default, bounds and description:
    the SDK builds a tool's input schema from its signature.

    Args:
        method: the bound ``RecallTools.recall``.
        described: descriptions for ``method``'s own parameters, known only when
            the server is built (the engine's query limit, the search types).

    Returns:
        A function that calls ``method``, with that signature.
    """
    own = inspect.signature(method, eval_str=True)
    texts = described or {}
    keep = [
        p.replace(annotation=Annotated[p.annotation, Field(description=texts[p.name])])
        if p.name in texts
        else p
        for p in own.parameters.values()
        if p.kind is not p.VAR_KEYWORD
    ]
    options = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=info.default,
            annotation=Annotated[base, Field(description=info.description), *info.metadata],
        )
        for name, (base, info) in recall_tool_options().items()
    ]

    @functools.wraps(method)
    async def call(*args: object, **kwargs: object) -> object:
        return await method(*args, **kwargs)

    call.__signature__ = own.replace(parameters=[*keep, *options])  # type: ignore[attr-defined]
    return call
