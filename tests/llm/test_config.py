"""LLMConfig: built from RecallConfig / the environment, frozen, never leaks the key."""

from __future__ import annotations

import pytest

from recall_engine.config import RecallConfig
from recall_engine.core.errors import InvalidInputError
from recall_engine.llm import LLMConfig


def test_from_recall_config_reads_the_llm_fields(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LLM_MODEL", "ollama/llama3")
    monkeypatch.setenv("LLM_API_BASE", "http://localhost:11434")
    monkeypatch.setenv("LLM_API_KEY", "sk-secret")
    monkeypatch.setenv("LLM_TIMEOUT", "12.5")
    monkeypatch.setenv("LLM_MAX_RETRIES", "4")
    monkeypatch.setenv("LLM_MAX_TOKENS", "512")
    cfg = LLMConfig.from_recall_config(RecallConfig.load())
    assert cfg.max_tokens == 512  # sent with every call: each request's bounded cost
    assert LLMConfig.from_recall_config(RecallConfig(llm_model="m/x")).max_tokens is None
    assert cfg.model == "ollama/llama3"
    assert cfg.api_base == "http://localhost:11434"
    assert cfg.api_key is not None and cfg.api_key.get_secret_value() == "sk-secret"
    assert (cfg.timeout_s, cfg.max_retries) == (12.5, 4)
    assert "sk-secret" not in repr(cfg) and "sk-secret" not in cfg.describe()
    assert cfg.describe() == "'ollama/llama3' at http://localhost:11434"


def test_from_recall_config_overrides_and_errors():
    base = RecallConfig(llm_model="openai/gpt-4o-mini")
    assert LLMConfig.from_recall_config(base, temperature=0.7).temperature == 0.7
    with pytest.raises(InvalidInputError, match="LLM_MODEL"):
        LLMConfig.from_recall_config(RecallConfig())
    with pytest.raises(InvalidInputError, match="timeout_s"):
        LLMConfig.from_recall_config(base, timeout_s=-1)


def test_llm_config_is_frozen_and_strict():
    cfg = LLMConfig(model=" openai/gpt-4o-mini ", api_base="  ")
    assert cfg.model == "openai/gpt-4o-mini" and cfg.api_base is None
    with pytest.raises(ValueError):
        cfg.model = "other"  # type: ignore[misc]
    with pytest.raises(ValueError):
        LLMConfig(model="m", retries=3)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        LLMConfig(model="  ")
