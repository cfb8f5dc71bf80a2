"""HydraDB v2's error shape on the v2 paths.

Every error of a v2 path answers v2's ``{"success": false, "error": {"code",
"message"}, "meta": {"api_version", "request_id"}}``, with v1's ``detail`` kept
beside it (the SDK's ``HandlerErrorResponse`` reads both). ``V2Errors`` rewrites the
one error envelope the app answers (``server.errors``) after the fact, so auth,
rate limits, validation and engine errors keep one mapping; a validation failure
(422 in v1) is v2's 400 ``VALIDATION_ERROR``. A request that sends an
``API-Version`` other than 2 to a v2 path is refused before the app runs.
"""

from __future__ import annotations

import json
import uuid
from typing import NoReturn

from starlette.types import ASGIApp

from recall_engine.server.errors import (
    ERROR_RESPONSES,
    ApiError,
    Message,
    Receive,
    Scope,
    Send,
    envelope,
)
from recall_engine.server.v2_models import API_VERSION, V2ErrorResponse

V2_PREFIXES = (
    "/query",
    "/context",
    "/databases",
    "/feedback",
    "/connectors",
    "/connector-catalog",
    "/webhooks",
)


# What the OpenAPI document declares for every v2 operation: v1's statuses but 422
# (a validation failure is 400 here), each with v2's error body.
V2_ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {
        "description": "Invalid parameters (VALIDATION_ERROR, INVALID_PARAMETERS, "
        "UNSUPPORTED_API_VERSION)"
        if status == 400
        else spec["description"],
        "model": V2ErrorResponse,
    }
    for status, spec in ERROR_RESPONSES.items()
    if status != 422
}


def is_v2(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in V2_PREFIXES)


def v2_body(status: int, detail: dict[str, object], request_id: str) -> dict[str, object]:
    """v2's error body of an envelope's ``detail`` (kept beside it)."""
    code = str(detail.get("error_code") or f"HTTP_{status}")
    return {
        "success": False,
        "error": {"code": code, "message": str(detail.get("message") or code)},
        "meta": {"api_version": API_VERSION, "request_id": request_id},
        "detail": detail,
    }


def not_honoured(what: str, instead: str = "") -> NoReturn:
    """Answer 501 ``NOT_IMPLEMENTED`` for a v2 feature this server does not have."""
    raise ApiError(
        501,
        "NOT_IMPLEMENTED",
        f"{what} is not supported by this self-hosted server.{' ' + instead if instead else ''}",
    )


class V2Errors:
    """ASGI middleware: v2's error shape and ``API-Version`` header on the v2 paths."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_v2(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        headers = dict(scope.get("headers") or [])
        version = headers.get(b"api-version", API_VERSION.encode()).decode("latin-1").strip()
        if version not in (API_VERSION, f"v{API_VERSION}"):
            response = envelope(
                400,
                "UNSUPPORTED_API_VERSION",
                f"API-Version {version!r} is not served on this path; send API-Version: 2.",
            )
            await _V2Send(send, request_id).respond(response, scope, receive)
            return
        await self.app(scope, receive, _V2Send(send, request_id))


class _V2Send:
    """A ``send`` that turns an error envelope into v2's shape and stamps every
    response with ``API-Version: 2``."""

    def __init__(self, send: Send, request_id: str) -> None:
        self.send = send
        self.request_id = request_id
        self.start: Message | None = None
        self.body = bytearray()

    async def respond(self, response: ASGIApp, scope: Scope, receive: Receive) -> None:
        await response(scope, receive, self)

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"api-version"]
            headers.append((b"api-version", API_VERSION.encode()))
            message = {**message, "headers": headers}
            if message["status"] < 400:
                await self.send(message)
                return
            self.start = message  # an error: held until its body is complete
            return
        if message["type"] != "http.response.body" or self.start is None:
            await self.send(message)
            return
        self.body += message.get("body", b"")
        if message.get("more_body", False):
            return
        await self._send_error()

    async def _send_error(self) -> None:
        assert self.start is not None
        status = int(self.start["status"])
        body = bytes(self.body)
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("detail"), dict):
            if status == 422:
                status = 400
            body = json.dumps(v2_body(status, parsed["detail"], self.request_id)).encode()
        headers = [
            (k, v) for k, v in self.start.get("headers", []) if k.lower() != b"content-length"
        ]
        headers.append((b"content-length", str(len(body)).encode()))
        await self.send({**self.start, "status": status, "headers": headers})
        await self.send({"type": "http.response.body", "body": body, "more_body": False})
