"""The server's error envelope mapped back to the library's exception classes.

The server names the class in the ``X-Recall-Error`` header; without one (an
error from the HTTP layer, or an older server) the envelope's ``error_code``
and status pick the nearest class. Messages never carry the API key: the
client never puts it in a URL and errors are built from the server's reply.
"""

from __future__ import annotations

from recall_engine.core import errors as core
from recall_engine.tenants import errors as tenant_errors


class RemoteUnavailableError(core.RuntimeFailure):
    """The recall-engine server could not be reached, or did not answer in time."""


class RemoteAuthenticationError(core.UsageError):
    """The server refused the API key (401): pass a valid ``api_key``."""


def _classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {"TypeError": TypeError}
    for module in (core, tenant_errors):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, core.RecallEngineError):
                found[name] = value
    return found


_BY_CODE: dict[str, type[core.RecallEngineError]] = {
    "TENANT_NOT_FOUND": tenant_errors.TenantNotFoundError,
    "SOURCE_NOT_FOUND": tenant_errors.SourceNotFoundError,
    "TENANT_ALREADY_EXISTS": tenant_errors.TenantAlreadyExistsError,
    "DATASET_NOT_FOUND": core.DatasetNotFoundError,
    "PAYLOAD_TOO_LARGE": core.InputTooLargeError,
    "PRECONDITION_FAILED": core.RecallPreconditionError,
    "NOT_IMPLEMENTED": core.SearchTypeNotImplementedError,
    "SERVICE_UNAVAILABLE": core.StoreError,
    "PAYMENT_REQUIRED": core.LLMPaymentRequiredError,
    "LLM_TIMEOUT": core.LLMTimeoutError,
    "LLM_RATE_LIMITED": core.LLMRateLimitError,
    "LLM_ERROR": core.LLMError,
    "FORBIDDEN": core.PermissionDeniedError,
    "UNAUTHORIZED": RemoteAuthenticationError,
    "RATE_LIMITED": RemoteUnavailableError,  # not bad input: the same call works later
    "INVALID_PARAMETERS": core.InvalidInputError,
    "VALIDATION_ERROR": core.InvalidInputError,
}


def error_from_reply(status: int, body: object, class_name: str | None) -> BaseException:
    """The exception an error reply stands for, with the server's message.

    Args:
        status: the HTTP status.
        body: the reply's JSON (None when it was not JSON).
        class_name: the ``X-Recall-Error`` header, when the server sent one.

    Returns:
        The exception to raise: the named class, else the class of the envelope's
        ``error_code`` (a rate limit is ``RemoteUnavailableError``), else by status.
    """
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, dict):
        message = str(detail.get("message") or detail.get("error_code") or status)
        code = str(detail.get("error_code") or "")
    else:
        message, code = f"The server answered HTTP {status}.", ""
    if status == 404 and class_name is None and (code == "" or message == "Not Found"):
        message += (
            " The URL has no such path: pass the recall-engine server's base URL "
            "(http://HOST:PORT, without a path) to RecallEngine.connect."
        )
    klass = _classes().get(class_name or "") or _BY_CODE.get(code)
    if klass is None:
        klass = RemoteUnavailableError if status >= 500 else core.InvalidInputError
    # Built without __init__: some classes take extra keyword arguments.
    exc = klass.__new__(klass)
    BaseException.__init__(exc, message)
    return exc
