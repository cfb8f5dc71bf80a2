"""A model configured without a key fails with ``LLMAuthenticationError`` naming
the variables to set, not with a generic, retried ``LLMError``: the OpenAI SDK
reports a missing key as a 500 and Gemini as a connection error, both raised
before any request leaves the process."""

from __future__ import annotations

import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.core.errors import LLMAuthenticationError
from recall_engine.llm import LLMConfig
from recall_engine.llm._litellm import get_litellm
from recall_engine.llm.client import LLMClient
from recall_engine.llm.errors import classify
from recall_engine.testing import DeterministicEmbedder, FakeLLMServer

MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def no_keys(monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "LLM_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)


async def test_openai_model_without_a_key_names_the_variables(
    server: FakeLLMServer, no_keys
) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    config = LLMConfig(model="openai/fake-model", api_base=server.base_url, max_retries=2)
    with pytest.raises(LLMAuthenticationError) as info:
        await LLMClient(config, sleep=sleep).complete(MESSAGES)
    message = str(info.value)
    assert "OPENAI_API_KEY" in message and "LLM_API_KEY" in message
    assert "openai/fake-model" in message
    assert server.requests == [] and waits == []  # nothing sent, never retried


def test_a_missing_gemini_key_reported_as_a_connection_error_is_authentication() -> None:
    litellm = get_litellm()
    exc = litellm.APIConnectionError(
        message="Missing Gemini API key. Set the GEMINI_API_KEY or GOOGLE_API_KEY "
        "environment variable.",
        llm_provider="gemini",
        model="gemini/gemini-1.5-flash",
    )
    verdict = classify(exc, model="gemini/gemini-1.5-flash", where="'gemini/gemini-1.5-flash'")
    assert isinstance(verdict.error, LLMAuthenticationError)
    assert not verdict.retryable
    assert "GEMINI_API_KEY" in str(verdict.error)


async def test_recall_with_an_llm_and_no_key_is_an_authentication_error(
    tmp_path, server: FakeLLMServer, no_keys
) -> None:
    eng = RecallEngine(
        tmp_path / "data",
        embedder=DeterministicEmbedder(),
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
    )
    try:
        await eng.remember("Ada Lovelace lived in London.", dataset_name="d")
        with pytest.raises(LLMAuthenticationError, match="OPENAI_API_KEY"):
            await eng.recall("Where did Ada live?", SearchType.RAG_COMPLETION)
    finally:
        eng.close()
    assert server.requests == []
