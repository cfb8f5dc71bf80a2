"""The HTTP error envelope and the mapping of engine errors to status codes.

Every error answers ``{"detail": {"success": false, "message": ..., "error_code": ...}}``
(HydraDB's ``ActualErrorResponse``). Engine exceptions keep no HTTP knowledge;
this table decides. Library errors are answered by handlers, so the connection
stays open for the next request; anything else (a bug) is caught by ``CatchAll``,
answered 500 ``INTERNAL_ERROR`` with a request id, never a stack trace, and
logged; it is not re-raised to the server, which would drop a keep-alive
connection. No message names the server's data dir: it is replaced by
``<data dir>``.
"""

from __future__ import annotations

import logging
import math
import os
import uuid
from collections.abc import Sequence
from typing import NoReturn

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from recall_engine.core import errors as core
from recall_engine.core.hydra import ActualErrorResponse, ErrorResponse
from recall_engine.tenants import errors as tenant_errors

logger = logging.getLogger("recall_engine.server")


class ApiError(Exception):
    """An error the server answers as it is."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def envelope(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The error envelope (``ActualErrorResponse``) as a response; handlers must
    answer a ``Response``, so the model is rendered here."""
    body = ActualErrorResponse(detail=ErrorResponse(message=message or code, error_code=code))
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


# (exception class, status, error code); the first class an error is an instance of wins.
ENGINE_ERRORS: list[tuple[type[BaseException], int, str]] = [
    (tenant_errors.TenantNotFoundError, 404, "TENANT_NOT_FOUND"),
    (tenant_errors.SourceNotFoundError, 404, "SOURCE_NOT_FOUND"),
    (tenant_errors.TenantAlreadyExistsError, 409, "TENANT_ALREADY_EXISTS"),
    (core.DatasetNotFoundError, 404, "DATASET_NOT_FOUND"),
    (core.InputTooLargeError, 413, "PAYLOAD_TOO_LARGE"),
    (core.RecallPreconditionError, 422, "PRECONDITION_FAILED"),
    (core.SearchTypeNotImplementedError, 501, "NOT_IMPLEMENTED"),
    (core.StoreError, 503, "SERVICE_UNAVAILABLE"),
    (core.EmbeddingError, 503, "SERVICE_UNAVAILABLE"),
    (core.LLMPaymentRequiredError, 402, "PAYMENT_REQUIRED"),
    (core.LLMTimeoutError, 504, "LLM_TIMEOUT"),
    (core.LLMRateLimitError, 503, "LLM_RATE_LIMITED"),
    (core.LLMError, 502, "LLM_ERROR"),
    (core.UsageError, 400, "INVALID_PARAMETERS"),
]
# Errors another part of the engine may define (users and permissions): by name.
NAMED_ERRORS = {"PermissionDeniedError": (403, "FORBIDDEN")}


def status_of(exc: BaseException) -> tuple[int, str]:
    """The status and code of an exception: library errors by the table, a pydantic
    ``ValidationError`` (a request part a route validated itself) as 422, and
    anything else, a plain ``ValueError`` included, as 500: a library error that
    is not in the tree is a bug to fix, not a 400 to hide."""
    for klass in type(exc).__mro__:
        if klass.__name__ in NAMED_ERRORS:
            return NAMED_ERRORS[klass.__name__]
    for klass, status, code in ENGINE_ERRORS:
        if isinstance(exc, klass):
            return status, code
    if isinstance(exc, core.RecallEngineError):
        return 400, "INVALID_PARAMETERS"
    if isinstance(exc, ValidationError):
        return 422, "VALIDATION_ERROR"
    return 500, "INTERNAL_ERROR"


# What the OpenAPI document declares for every operation: each error status the
# server answers, with the envelope's schema.
ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    status: {"description": text, "model": ActualErrorResponse}
    for status, text in (
        (400, "Invalid parameters (INVALID_PARAMETERS)"),
        (401, "Missing or invalid API key (UNAUTHORIZED)"),
        (402, "The LLM budget is exhausted (PAYMENT_REQUIRED)"),
        (403, "The key belongs to another tenant, or no permission (FORBIDDEN)"),
        (404, "Tenant, dataset or source not found"),
        (409, "The tenant already exists (TENANT_ALREADY_EXISTS)"),
        (413, "Request body too large (PAYLOAD_TOO_LARGE)"),
        (415, "Unsupported content type (UNSUPPORTED_MEDIA_TYPE)"),
        (422, "Validation failed (VALIDATION_ERROR, PRECONDITION_FAILED)"),
        (429, "Rate limited; see Retry-After (RATE_LIMITED)"),
        (500, "Internal error, with a reference to the server log (INTERNAL_ERROR)"),
        (501, "Not supported by this server (NOT_IMPLEMENTED)"),
        (502, "The LLM provider failed (LLM_ERROR)"),
        (503, "Store or model unavailable (SERVICE_UNAVAILABLE, LLM_RATE_LIMITED)"),
        (504, "The LLM did not answer in time (LLM_TIMEOUT)"),
    )
}

_HTTP_CODES = {
    400: "INVALID_PARAMETERS",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_ERROR",
    429: "RATE_LIMITED",
}


def _validation_message(errors: Sequence[ErrorDetails]) -> str:
    parts = []
    for error in errors[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {error.get('msg', 'invalid')}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more


def install(app: FastAPI) -> None:
    """Answer every error with the envelope."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return envelope(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return envelope(422, "VALIDATION_ERROR", _validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        message = exc.detail if isinstance(exc.detail, str) else code
        return envelope(exc.status_code, code, message, getattr(exc, "headers", None))

    @app.exception_handler(core.RecallEngineError)
    async def _engine(request: Request, exc: core.RecallEngineError) -> JSONResponse:
        return engine_error(request, exc)

    @app.exception_handler(ValidationError)
    async def _model(request: Request, exc: ValidationError) -> JSONResponse:
        message = _validation_message(list(exc.errors(include_url=False)))
        return envelope(422, "VALIDATION_ERROR", redact(request, message))

    app.add_middleware(CatchAll)


class CatchAll:
    """Answer an exception no handler took (a bug) with the 500 envelope, inside the
    app: Starlette's own last-resort handler re-raises to the server after
    answering, and the server then closes the (keep-alive) connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            if started:  # too late for an envelope: let the server end the response
                raise
            response = engine_error(Request(scope), exc)
            await response(scope, receive, send)


def engine_error(request: Request, exc: BaseException) -> JSONResponse:
    status, code = status_of(exc)
    if status >= 500:
        ref = uuid.uuid4().hex[:12]
        logger.error("%s %s failed (ref %s)", request.method, request.url.path, ref, exc_info=exc)
        if status == 500:
            return envelope(
                500, code, f"Internal error; the server log has the details (ref {ref})."
            )
        message = f"{redact(request, _first_line(exc))} (ref {ref})"
        return envelope(status, code, message, _retry_headers(exc))
    return envelope(status, code, redact(request, _first_line(exc)))


def _retry_headers(exc: BaseException) -> dict[str, str] | None:
    """``Retry-After`` for a write that waited its bound for another replica's lease."""
    if isinstance(exc, core.WriterBusyError):
        return {"Retry-After": str(max(1, math.ceil(exc.retry_after_s)))}
    return None


def redact(request: Request, message: str) -> str:
    """``message`` without the server's data dir (in any spelling of it)."""
    engine = getattr(request.app.state, "engine", None) if "app" in request.scope else None
    config = getattr(engine, "config", None)
    root = getattr(config, "data_dir", None)
    if root is None:
        return message
    spellings = {str(root), os.path.abspath(root), os.path.realpath(root)}
    for spelling in sorted(spellings, key=len, reverse=True):
        if spelling not in (".", "/", "") and len(spelling) > 1:
            message = message.replace(spelling.rstrip(os.sep), "<data dir>")
    return message


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:1000]


def not_implemented(what: str) -> NoReturn:
    """Answer 501 for a HydraDB feature this server does not have (raw embeddings)."""
    raise ApiError(
        501,
        "NOT_IMPLEMENTED",
        f"{what} is not supported by this server: it embeds text itself "
        "(send text to /memories/add_memory or /ingestion/upload_knowledge).",
    )
