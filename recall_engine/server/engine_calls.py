"""The embedded engine's own methods over HTTP, for ``RecallEngine.connect``.

``POST /api/v1/engine/{method}`` takes the method's keyword arguments as a JSON
object (``{"args": [...], "kwargs": {...}}``) and answers its return value as
JSON. Only the methods in ``METHODS`` are reachable; the caller's key must be
allowed on the tenant a call names (the same check as ``/api/v1/recall``).
Errors keep the envelope, plus an ``X-Recall-Error`` header naming the library
class, so the remote client raises the same exception as the embedded engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core import errors as core
from recall_engine.core.models import Conversation, Document
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, ApiError, engine_error, envelope
from recall_engine.server.port import EnginePort
from recall_engine.server.responses import EngineCallResult

ERROR_HEADER = "X-Recall-Error"

# The engine methods the remote client may call; each takes tenant_id=.
METHODS = frozenset(
    {
        "remember",
        "recall",
        "forget",
        "datasets",
        "create_user",
        "users",
        "grant",
        "revoke",
        "add_feedback",
        "list_datasets",
        "list_items",
    }
)


class CallBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    args: list[object] = Field(default_factory=list, max_length=8)
    kwargs: dict[str, Any] = Field(default_factory=dict)


def engine_router(
    engine: EnginePort,
    auth: Authenticator,
    store_of: Callable[[EnginePort, str | None, Principal], str],
    item: Callable[[object], Document | Conversation],
) -> APIRouter:
    """``store_of`` maps a request's tenant id to its store once the key may act on
    it, and ``item`` turns a text or object into a Document / Conversation (a text
    is never read as a server-side path): the app's own, so both routes agree."""
    router = APIRouter(responses=ERROR_RESPONSES)

    # The reply is rendered by pydantic's own JSON encoder in one pass, not re-checked
    # against response_model and then json.dumps'd (FastAPI's path): the same JSON
    # values (a float may be spelt 0.00001 for 1e-05), a quarter of a millisecond less
    # per recall (bench.remote). response_model stays for the OpenAPI schema.
    @router.post(
        "/api/v1/engine/{method}",
        tags=["engine"],
        response_model=EngineCallResult,
        response_class=JSONResponse,
    )
    async def call(method: str, body: CallBody, who: Principal = Depends(auth)) -> Response:
        if method not in METHODS:
            raise ApiError(404, "NOT_FOUND", f"No engine method {method!r} over HTTP.")
        kwargs = dict(body.kwargs)
        kwargs["tenant_id"] = store_of(engine, kwargs.get("tenant_id"), who)
        args = list(body.args)
        if method == "remember":  # positional or data=: never a server-side path
            if args:
                args[0] = _items(args[0], item)
            if "data" in kwargs:
                kwargs["data"] = _items(kwargs["data"], item)
        if method == "recall" and "system_prompt_path" in kwargs:
            raise ApiError(
                400, "INVALID_PARAMETERS", "system_prompt_path is not accepted over HTTP."
            )
        try:
            result = await getattr(engine, method)(*args, **kwargs)
        except TypeError as exc:  # an unknown keyword, as the embedded engine raises it
            response = envelope(400, "INVALID_PARAMETERS", str(exc).splitlines()[0][:1000])
            response.headers[ERROR_HEADER] = "TypeError"
            return response
        content = EngineCallResult(result=result).model_dump_json()
        return Response(content=content, media_type="application/json")

    return router


def _items(data: object, item: Callable[[object], Document | Conversation]) -> object:
    """``remember()``'s data from JSON with each text and object made a Document /
    Conversation, so a text that names a server-side file or folder is stored as
    text, never read from disk; any other value (a number, null, a nested list) is
    left for the engine to refuse, with the embedded engine's own error.

    Args:
        data: a text, an object, or a list of these, as the request sent it.
        item: the app's text-or-object to Document / Conversation conversion.

    Returns:
        ``data`` with its texts and objects converted.
    """

    def one(value: object) -> object:
        return item(value) if isinstance(value, str | dict) else value

    return [one(v) for v in data] if isinstance(data, list) else one(data)


def install(
    app: FastAPI,
    engine: EnginePort,
    auth: Authenticator,
    store_of: Callable[[EnginePort, str | None, Principal], str],
    item: Callable[[Any], Document | Conversation],
) -> None:
    """Serve the engine calls and name the class of each library error."""

    @app.exception_handler(core.RecallEngineError)
    async def _engine(request: Request, exc: core.RecallEngineError) -> JSONResponse:
        response = engine_error(request, exc)
        response.headers[ERROR_HEADER] = type(exc).__name__
        return response

    app.include_router(engine_router(engine, auth, store_of, item))
