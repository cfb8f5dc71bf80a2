"""The HTTP error envelope and the mapping of engine errors to status codes.

Every error answers ``{"detail": {"success": false, "message": ..., "error_code": ...}}``
(HydraDB's ``ActualErrorResponse``). Engine exceptions keep no HTTP knowledge;
this table decides. Unexpected exceptions answer 500 ``INTERNAL_ERROR`` with a
request id, never a stack trace; the trace goes to the server log.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from recall_engine.core import errors as core
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
    body = {"detail": {"success": False, "message": message or code, "error_code": code}}
    return JSONResponse(body, status_code=status, headers=headers)


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
    for klass in type(exc).__mro__:
        if klass.__name__ in NAMED_ERRORS:
            return NAMED_ERRORS[klass.__name__]
    for klass, status, code in ENGINE_ERRORS:
        if isinstance(exc, klass):
            return status, code
    if isinstance(exc, core.RecallEngineError | ValueError | TypeError):
        return 400, "INVALID_PARAMETERS"
    return 500, "INTERNAL_ERROR"


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


def _validation_message(errors: list[Any]) -> str:
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

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return engine_error(request, exc)


def engine_error(request: Request, exc: BaseException) -> JSONResponse:
    status, code = status_of(exc)
    if status >= 500:
        ref = uuid.uuid4().hex[:12]
        logger.error("%s %s failed (ref %s)", request.method, request.url.path, ref, exc_info=exc)
        if status == 500:
            return envelope(
                500, code, f"Internal error; the server log has the details (ref {ref})."
            )
        return envelope(status, code, f"{_first_line(exc)} (ref {ref})")
    return envelope(status, code, _first_line(exc))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:1000]
