"""Async chat completion through litellm, with timeouts, retries and accounting.

litellm's and the OpenAI SDK's own retries are switched off (``num_retries=0``,
``max_retries=0``) so that exactly one policy applies: ours, which never
retries a budget or payment failure and never retries other 4xx answers.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from recall_engine.core.errors import LLMResponseError
from recall_engine.llm._litellm import get_litellm
from recall_engine.llm.config import LLMConfig
from recall_engine.llm.errors import Classified, classify, quotes_secret
from recall_engine.llm.usage import LLMUsage, record_usage

Message = Mapping[str, object]

# litellm enforces timeout_s per attempt; this outer bound only catches a
# client that ignores it (it should never fire).
_HARD_TIMEOUT_FACTOR = 2.0


@dataclass(frozen=True)
class Completion:
    """The text of one completion and what it cost."""

    text: str
    usage: LLMUsage
    finish_reason: str | None = None


class LLMClient:
    """Calls one configured model. Cheap to build; holds no connection itself.

    ``sleep`` is injectable so tests can skip backoff waits.
    """

    def __init__(
        self,
        config: LLMConfig,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.config = config
        self._sleep = sleep

    def _params(self, messages: Sequence[Message], extra: dict[str, object]) -> dict[str, object]:
        cfg = self.config
        params: dict[str, object] = {
            "model": cfg.model,
            "messages": list(messages),
            "timeout": cfg.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
            "drop_params": True,  # e.g. temperature on models that reject it
        }
        if cfg.api_key is not None:
            params["api_key"] = cfg.api_key.get_secret_value()
        if cfg.api_base is not None:
            params["api_base"] = cfg.api_base
        if cfg.temperature is not None:
            params["temperature"] = cfg.temperature
        if cfg.max_tokens is not None:
            params["max_tokens"] = cfg.max_tokens
        params.update({k: v for k, v in extra.items() if v is not None})
        return params

    def _backoff(self, attempt: int, retry_after_s: float | None) -> float:
        cfg = self.config
        delay = cfg.backoff_base_s * (2 ** (attempt - 1))
        if retry_after_s is not None:
            delay = max(delay, retry_after_s)
        # A little jitter so many clients rate-limited together do not retry together.
        return min(cfg.backoff_max_s, delay) * (1.0 + 0.25 * random.random())

    async def _call(self, params: dict[str, object]) -> tuple[Any, int]:
        """One ``acompletion`` with our retry policy; returns (response, attempts)."""
        litellm = get_litellm()
        hard_timeout = self.config.timeout_s * _HARD_TIMEOUT_FACTOR + 1.0
        attempt = 0
        while True:
            attempt += 1
            try:
                async with asyncio.timeout(hard_timeout):
                    return await litellm.acompletion(**params), attempt
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the provider boundary: classify() decides what it means
                verdict = self._classify(exc)
                if not verdict.retryable or attempt > self.config.max_retries:
                    raise verdict.error from self._cause(exc)
                await self._sleep(self._backoff(attempt, verdict.retry_after_s))

    def _classify(self, exc: BaseException) -> Classified:
        cfg = self.config
        return classify(exc, model=cfg.model, where=cfg.describe(), secrets=cfg.secrets())

    def _cause(self, exc: BaseException) -> BaseException | None:
        """``exc`` as our error's cause, unless it quotes the key (our message has
        what it said, without the key)."""
        return None if quotes_secret(exc, self.config.secrets()) else exc

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        response_format: dict[str, object] | None = None,
    ) -> Completion:
        """Return the model's reply to ``messages``.

        Raises:
            LLMPaymentRequiredError: payment required or budget exhausted (never retried).
            LLMAuthenticationError, LLMModelNotFoundError: fix the configuration.
            LLMTimeoutError, LLMRateLimitError: still failing after ``max_retries``.
            LLMResponseError: the reply was not JSON or had no text.
            LLMError: any other provider failure.
        """
        get_litellm()  # the first import takes seconds: keep it out of the latency
        started = time.perf_counter()
        params = self._params(messages, {"response_format": response_format})
        response, attempts = await self._call(params)
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            choice = response.choices[0]
            text = choice.message.content
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMResponseError(
                f"Model {self.config.describe()} returned no choices: {response!r:.300}"
            ) from exc
        if not isinstance(text, str):
            raise LLMResponseError(
                f"Model {self.config.describe()} returned no text (finish_reason="
                f"{getattr(choice, 'finish_reason', None)!r}); try again or use another model."
            )
        usage = _usage_of(response, self.config.model, latency_ms, attempts)
        record_usage(usage)
        return Completion(
            text=text, usage=usage, finish_reason=getattr(choice, "finish_reason", None)
        )

    async def stream(self, messages: Sequence[Message]) -> AsyncIterator[str]:
        """Yield the reply to ``messages`` piece by piece; usage is recorded at the end.

        Connecting is retried like ``complete()``; a stream that breaks midway is
        not (its start has already been handed out). Raises as ``complete()``.
        """
        get_litellm()
        started = time.perf_counter()
        params = self._params(messages, {"stream": True, "stream_options": {"include_usage": True}})
        stream, attempts = await self._call(params)
        last: object = None
        try:
            async for chunk in stream:
                last = chunk if getattr(chunk, "usage", None) else last
                choices = getattr(chunk, "choices", None) or []
                piece = choices[0].delta.content if choices else None
                if piece:
                    yield piece
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the provider boundary, as in _call()
            raise self._classify(exc).error from self._cause(exc)
        latency_ms = (time.perf_counter() - started) * 1000
        record_usage(_usage_of(last, self.config.model, latency_ms, attempts))


def _usage_of(response: object, model: str, latency_ms: float, attempts: int) -> LLMUsage:
    usage = getattr(response, "usage", None)
    return LLMUsage(
        model=model,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        latency_ms=round(latency_ms, 3),
        calls=1,
        attempts=attempts,
    )
