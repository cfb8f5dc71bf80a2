"""Turn whatever litellm (or the provider behind it) raised into our error tree.

    provider / litellm                         -> ours                       retried?
    402, PaymentRequiredError, BudgetExceeded  -> LLMPaymentRequiredError   never
    429 with error type "budget_exceeded"      -> LLMPaymentRequiredError   never
    429                                        -> LLMRateLimitError         yes
    401, 403                                   -> LLMAuthenticationError    no
    no key configured (raised before any call) -> LLMAuthenticationError    no
    404, unknown provider / model              -> LLMModelNotFoundError     no
    timeout                                    -> LLMTimeoutError           yes
    body that is not JSON                      -> LLMResponseError          no
    5xx, connection failure                    -> LLMError                  yes
    any other 4xx                              -> LLMError                  no

The classification reads status codes and the error body, never litellm's
class names alone: litellm reports a provider 402 as a plain ``APIError``. A
provider or proxy may quote the key it was sent in its error; ``classify``
replaces the configured secrets with ``***`` in every message it builds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType

from recall_engine.core.errors import (
    LLMAuthenticationError,
    LLMError,
    LLMModelNotFoundError,
    LLMPaymentRequiredError,
    LLMRateLimitError,
    LLMResponseError,
    LLMTimeoutError,
)

PAYMENT_REQUIRED_DETAIL = (
    "LLM provider requires payment or token budget is exhausted. [LLMPaymentRequiredError]"
)
"""The HTTP 402 body's ``detail`` (Cognee-compatible); the server maps the error, not us."""

PAYMENT_REQUIRED_STATUS = 402

# litellm raises a plain BadRequestError with this text for a model string it cannot route.
_UNKNOWN_PROVIDER = "LLM Provider NOT provided"

# What a provider SDK or litellm says when no key is configured: it fails before
# any request, and litellm reports it as a 500 (OpenAI) or a connection error
# (Gemini), which would otherwise read as a provider outage and be retried.
_MISSING_KEY = re.compile(
    r"missing credentials|missing [\w ]{0,30}api[ _]key|api_key client option must be set"
    r"|no (?:api )?key is set",
    re.IGNORECASE,
)


# A shorter "key" is a placeholder (LLM_API_KEY=x for a local endpoint): replacing it
# would garble every message and hide nothing.
MIN_SECRET_CHARS = 8


def scrub(text: str, secrets: Sequence[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***``."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, "***")
    return text


def quotes_secret(exc: BaseException, secrets: Sequence[str]) -> bool:
    """Whether ``exc`` or an exception it came from quotes one of ``secrets`` (then
    it must not travel as the cause of ours: a traceback would print it)."""
    return any(scrub(str(c), secrets) != str(c) for c in _causes(exc))


@dataclass(frozen=True)
class Classified:
    """What we make of one failed attempt."""

    error: LLMError
    retryable: bool
    retry_after_s: float | None = None


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in chain and len(chain) < 10:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    return chain


def _error_body(exc: BaseException) -> dict[str, object]:
    body = getattr(exc, "body", None)
    if not isinstance(body, dict):
        response = getattr(exc, "response", None)
        try:
            body = json.loads(response.text) if response is not None else None
        except Exception:  # no readable body is a normal case, not an error
            body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    return body if isinstance(body, dict) else {}


def _is_budget_error(exc: BaseException, body: Mapping[str, object]) -> bool:
    markers = {str(body.get("type", "")), str(body.get("code", ""))}
    markers |= {str(getattr(exc, "type", "") or ""), str(getattr(exc, "code", "") or "")}
    if "budget_exceeded" in {m.lower() for m in markers}:
        return True
    return "budget_exceeded" in str(exc).lower()


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def key_variables(model: str) -> list[str]:
    """The provider's own environment variables for ``model``'s key, as litellm
    knows them (empty when it knows none or cannot tell)."""
    try:
        missing = _litellm().validate_environment(model).get("missing_keys") or []
    except Exception:  # an unknown provider: the other hints still apply
        return []
    return [str(name) for name in missing if "KEY" in str(name) or "TOKEN" in str(name)]


def _key_hint(model: str) -> str:
    names = ["LLM_API_KEY", *key_variables(model)]
    return f"Set {' or '.join(names)} in the environment, or pass LLMConfig.api_key"


def classify(
    exc: BaseException, *, model: str, where: str, secrets: Sequence[str] = ()
) -> Classified:
    """Map one exception from ``litellm.acompletion`` to our error and a retry verdict.

    ``model`` and ``where`` (the model and endpoint, e.g. from ``LLMConfig.describe()``)
    go into the message so the reader knows what to check; ``secrets`` (the key,
    ``LLMConfig.secrets()``) never do, even when the provider's error quotes them.
    """
    if isinstance(exc, LLMError):
        return Classified(exc, retryable=False)
    litellm_exc = _litellm().exceptions
    status = getattr(exc, "status_code", None)
    body = _error_body(exc)
    detail = scrub(str(body.get("message") or exc), secrets)[:500]
    chain = _causes(exc)

    if (
        isinstance(exc, litellm_exc.BudgetExceededError | litellm_exc.PaymentRequiredError)
        or status == PAYMENT_REQUIRED_STATUS
        or (status == 429 and _is_budget_error(exc, body))
    ):
        return Classified(
            LLMPaymentRequiredError(
                f"{PAYMENT_REQUIRED_DETAIL} Model {where}: {detail}. Top up the provider "
                "account or raise the proxy budget; retrying will not help."
            ),
            retryable=False,
        )
    if isinstance(exc, litellm_exc.Timeout) or any(isinstance(c, TimeoutError) for c in chain):
        return Classified(
            LLMTimeoutError(
                f"Model {where} did not answer in time. Raise LLM_TIMEOUT / "
                f"LLMConfig.timeout_s or check that the endpoint is up. ({detail})"
            ),
            retryable=True,
        )
    if any(isinstance(c, json.JSONDecodeError) for c in chain):
        return Classified(
            LLMResponseError(
                f"Model {where} answered with a body that is not valid JSON: {detail}. "
                "Check that api_base points at an OpenAI-compatible endpoint."
            ),
            retryable=False,
        )
    if any(_MISSING_KEY.search(str(c)) for c in chain):
        return Classified(
            LLMAuthenticationError(
                f"Model {where} has no API key: {detail}. {_key_hint(model)} "
                "(an endpoint that needs no key still needs a placeholder for some providers)."
            ),
            retryable=False,
        )
    if status in (401, 403) or isinstance(exc, litellm_exc.AuthenticationError):
        return Classified(
            LLMAuthenticationError(
                f"Model {where} rejected the credentials ({status}): {detail}. Check "
                "LLM_API_KEY / LLMConfig.api_key (or the provider's own key variable) and "
                f"that the key may use {model!r}."
            ),
            retryable=False,
        )
    if (
        status == 404
        or isinstance(exc, litellm_exc.NotFoundError | litellm_exc.LiteLLMUnknownProvider)
        or _UNKNOWN_PROVIDER in str(exc)
    ):
        return Classified(
            LLMModelNotFoundError(
                f"Model {where} was not found: {detail}. Check the model name and its "
                "provider prefix (e.g. 'openai/gpt-4o-mini', 'ollama/llama3') and api_base."
            ),
            retryable=False,
        )
    if status == 429 or isinstance(exc, litellm_exc.RateLimitError):
        return Classified(
            LLMRateLimitError(
                f"Model {where} kept rate-limiting the requests: {detail}. Wait, lower "
                "the request rate, or raise LLM_MAX_RETRIES."
            ),
            retryable=True,
            retry_after_s=_retry_after(exc),
        )
    if (isinstance(status, int) and status >= 500) or isinstance(
        exc, litellm_exc.APIConnectionError | litellm_exc.ServiceUnavailableError
    ):
        return Classified(
            LLMError(f"Model {where} failed ({status or 'no response'}): {detail}"),
            retryable=True,
            retry_after_s=_retry_after(exc),
        )
    return Classified(
        LLMError(f"Model {where} refused the request ({status or type(exc).__name__}): {detail}"),
        retryable=False,
    )


def _litellm() -> ModuleType:
    from recall_engine.llm._litellm import get_litellm

    return get_litellm()
