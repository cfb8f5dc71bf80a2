"""The completion client against the local fake server, through the real litellm client."""

from __future__ import annotations

import traceback

import pytest
from pydantic import SecretStr

from recall_engine.core.errors import (
    LLMAuthenticationError,
    LLMError,
    LLMModelNotFoundError,
    LLMPaymentRequiredError,
    LLMRateLimitError,
    LLMResponseError,
    LLMTimeoutError,
)
from recall_engine.llm import PAYMENT_REQUIRED_DETAIL, LLMClient, LLMConfig, track_usage
from recall_engine.llm.errors import classify
from recall_engine.testing import FakeLLMServer, ScriptedReply

# litellm builds a pydantic adapter for its streaming types on first use, and pydantic
# warns about a ReadOnly TypedDict field in litellm's own types: not ours to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"
)

MESSAGES = [{"role": "user", "content": "Where was Einstein born?"}]


async def test_completion_returns_text_and_usage(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue("Einstein was born in Ulm.")
    completion = await LLMClient(llm_config).complete(MESSAGES)

    assert completion.text == "Einstein was born in Ulm."
    assert completion.finish_reason == "stop"
    # The fake counts whitespace-separated words.
    assert completion.usage.prompt_tokens == 4
    assert completion.usage.completion_tokens == 5
    assert completion.usage.total_tokens == 9
    assert completion.usage.model == "openai/fake-model"
    assert completion.usage.calls == 1 and completion.usage.attempts == 1
    assert completion.usage.latency_ms > 0

    request = server.last_request
    assert request.path == "/v1/chat/completions"
    assert request.json["model"] == "fake-model"
    assert request.json["messages"] == MESSAGES
    assert request.json["temperature"] == 0.0
    assert request.headers["authorization"] == "Bearer test"


async def test_llm_max_tokens_is_sent_with_every_call(server: FakeLLMServer, llm_config):
    server.enqueue("Ulm.")
    assert "max_tokens" not in (await _asked(llm_config, server))  # the provider's own limit
    bounded = llm_config.model_copy(update={"max_tokens": 64})  # RecallConfig.llm_max_tokens
    server.enqueue("Ulm.")
    assert (await _asked(bounded, server))["max_tokens"] == 64


async def _asked(config: LLMConfig, server: FakeLLMServer) -> dict:
    await LLMClient(config).complete(MESSAGES)
    return server.last_request.json


async def test_track_usage_totals_every_call(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue("one two", "three")
    client = LLMClient(llm_config)
    with track_usage() as tally:
        await client.complete(MESSAGES)
        await client.complete(MESSAGES)
    total = tally.total
    assert total.calls == 2
    assert total.prompt_tokens == 8
    assert total.completion_tokens == 3
    await client.complete(MESSAGES)  # outside the block: not counted
    assert tally.total.calls == 2


async def test_streaming_yields_pieces_and_records_usage(
    server: FakeLLMServer, llm_config: LLMConfig
):
    server.enqueue("Einstein was born in Ulm.")
    with track_usage() as tally:
        pieces = [p async for p in LLMClient(llm_config).stream(MESSAGES)]
    assert "".join(pieces) == "Einstein was born in Ulm."
    assert len(pieces) == 5
    assert server.last_request.json["stream"] is True
    assert tally.total.completion_tokens == 5
    assert tally.total.prompt_tokens == 4


@pytest.mark.parametrize(
    "failure",
    [
        ScriptedReply.error(429, "slow down"),
        ScriptedReply.error(500, "boom"),
        ScriptedReply.error(503, "overloaded"),
        ScriptedReply.slow(5.0),
    ],
    ids=["429", "500", "503", "timeout"],
)
async def test_transient_failures_are_retried(
    server: FakeLLMServer, llm_config: LLMConfig, failure: ScriptedReply
):
    config = llm_config.model_copy(update={"timeout_s": 0.5})
    server.enqueue(failure, "Ulm.")
    completion = await LLMClient(config).complete(MESSAGES)
    assert completion.text == "Ulm."
    assert completion.usage.attempts == 2
    assert len(server.requests) == 2


async def test_retries_back_off_exponentially(server: FakeLLMServer, llm_config: LLMConfig):
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    config = llm_config.model_copy(update={"backoff_base_s": 1.0, "backoff_max_s": 3.0})
    server.enqueue(*[ScriptedReply.error(500)] * 3)
    with pytest.raises(LLMError, match="failed \\(500\\)"):
        await LLMClient(config, sleep=fake_sleep).complete(MESSAGES)
    assert len(server.requests) == 3  # one try + max_retries=2
    assert len(waits) == 2
    assert 1.0 <= waits[0] <= 1.25 and 2.0 <= waits[1] <= 2.5


async def test_retry_after_header_is_honoured_up_to_the_cap(
    server: FakeLLMServer, llm_config: LLMConfig
):
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    config = llm_config.model_copy(update={"backoff_max_s": 3.0})
    server.enqueue(ScriptedReply.error(429, headers={"Retry-After": "2"}), "ok")
    await LLMClient(config, sleep=fake_sleep).complete(MESSAGES)
    assert 2.0 <= waits[0] <= 2.5


async def test_rate_limit_that_persists_raises_rate_limit_error(
    server: FakeLLMServer, llm_config: LLMConfig
):
    server.enqueue(*[ScriptedReply.error(429, "slow down")] * 3)
    with pytest.raises(LLMRateLimitError, match="fake-model"):
        await LLMClient(llm_config).complete(MESSAGES)
    assert len(server.requests) == 3


async def test_timeout_that_persists_raises_timeout_error(
    server: FakeLLMServer, llm_config: LLMConfig
):
    config = llm_config.model_copy(update={"timeout_s": 0.3, "max_retries": 1})
    server.enqueue(ScriptedReply.slow(3.0), ScriptedReply.slow(3.0))
    with pytest.raises(LLMTimeoutError, match="LLM_TIMEOUT"):
        await LLMClient(config).complete(MESSAGES)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "failure",
    [
        ScriptedReply.error(402, "insufficient credit"),
        ScriptedReply.error(429, "Budget has been exceeded", error_type="budget_exceeded"),
    ],
    ids=["402", "429-budget_exceeded"],
)
async def test_payment_and_budget_failures_are_terminal(
    server: FakeLLMServer, llm_config: LLMConfig, failure: ScriptedReply
):
    server.enqueue(failure, "never sent")
    with pytest.raises(LLMPaymentRequiredError) as info:
        await LLMClient(llm_config).complete(MESSAGES)
    assert PAYMENT_REQUIRED_DETAIL in str(info.value)
    assert len(server.requests) == 1  # never retried


def test_litellm_budget_exceeded_error_maps_to_payment_required():
    from recall_engine.llm._litellm import get_litellm

    exc = get_litellm().BudgetExceededError(current_cost=5.0, max_budget=1.0)
    verdict = classify(exc, model="openai/x", where="'openai/x'")
    assert isinstance(verdict.error, LLMPaymentRequiredError)
    assert not verdict.retryable


@pytest.mark.parametrize(
    ("failure", "error", "hint"),
    [
        (ScriptedReply.error(401, "bad key"), LLMAuthenticationError, "LLM_API_KEY"),
        (ScriptedReply.error(403, "no access"), LLMAuthenticationError, "LLM_API_KEY"),
        (
            ScriptedReply.error(404, "The model `fake-model` does not exist"),
            LLMModelNotFoundError,
            "provider prefix",
        ),
        (ScriptedReply.error(400, "bad request"), LLMError, "refused the request"),
        (ScriptedReply.malformed(), LLMResponseError, "not valid JSON"),
    ],
    ids=["401", "403", "404", "400", "malformed-json"],
)
async def test_terminal_failures_map_to_clear_errors(
    server: FakeLLMServer,
    llm_config: LLMConfig,
    failure: ScriptedReply,
    error: type[Exception],
    hint: str,
):
    server.enqueue(failure, "never sent")
    with pytest.raises(error) as info:
        await LLMClient(llm_config).complete(MESSAGES)
    assert type(info.value) is error
    message = str(info.value)
    assert "openai/fake-model" in message and server.base_url in message
    assert hint in message
    assert len(server.requests) == 1


async def test_model_without_provider_is_model_not_found(llm_config: LLMConfig):
    config = llm_config.model_copy(update={"model": "no-such-provider-model-xyz"})
    with pytest.raises(LLMModelNotFoundError, match="no-such-provider-model-xyz"):
        await LLMClient(config).complete(MESSAGES)


async def test_unreachable_endpoint_is_retried_then_raised(llm_config: LLMConfig):
    with FakeLLMServer() as dead:
        base = dead.base_url  # a port that is closed once the server stops
    config = llm_config.model_copy(update={"api_base": base, "max_retries": 1})
    with pytest.raises(LLMError, match="fake-model"):
        await LLMClient(config).complete(MESSAGES)


KEY = "sk-test-SECRET123"


@pytest.mark.parametrize(
    "failure",
    [
        ScriptedReply.error(401, f"Incorrect API key provided: {KEY}"),
        ScriptedReply.error(400, f"bad request for key {KEY}"),
        ScriptedReply.error(500, f"upstream refused {KEY}"),
    ],
    ids=["401", "400", "500"],
)
async def test_a_key_the_provider_quotes_is_never_shown(
    server: FakeLLMServer, llm_config: LLMConfig, failure: ScriptedReply
):
    config = llm_config.model_copy(update={"api_key": SecretStr(KEY), "max_retries": 0})
    server.enqueue(failure)
    with pytest.raises(LLMError) as info:
        await LLMClient(config).complete(MESSAGES)
    assert server.last_request.headers["authorization"] == f"Bearer {KEY}"
    shown = "".join(traceback.format_exception(info.value))
    assert "Incorrect API key" in shown or "refused" in shown or "bad request" in shown
    assert KEY not in shown and "***" in str(info.value)


def test_a_password_in_api_base_is_never_shown():
    config = LLMConfig(model="openai/x", api_base="https://proxy:pw-SECRET123@llm.example/v1")
    assert config.describe() == "'openai/x' at https://proxy:***@llm.example/v1"
    assert "pw-SECRET123" not in repr(config)
    exc = RuntimeError("cannot reach https://proxy:pw-SECRET123@llm.example/v1")
    verdict = classify(exc, model="openai/x", where=config.describe(), secrets=config.secrets())
    assert "pw-SECRET123" not in str(verdict.error)
