"""Frozen settings for one LLM endpoint: which model, where, how patiently."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from recall_engine.core.errors import InvalidInputError
from recall_engine.state.urls import redacted

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig


class LLMConfig(BaseModel):
    """How to reach one model through litellm.

    ``model`` is any litellm model string: ``openai/gpt-4o-mini``,
    ``ollama/llama3``, ``anthropic/claude-3-5-haiku-latest``, or
    ``openai/<name>`` with ``api_base`` for any OpenAI-compatible endpoint.
    Per-call changes make a copy: ``cfg.model_copy(update={"temperature": 0.7})``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    api_key: SecretStr | None = None
    api_base: str | None = None
    timeout_s: float = Field(default=60.0, gt=0, description="Per attempt.")
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Extra attempts on 429/5xx/timeouts."
    )
    temperature: float | None = Field(
        default=0.0, ge=0, le=2, description="None = provider default."
    )
    max_tokens: int | None = Field(default=None, ge=1)
    backoff_base_s: float = Field(default=0.5, ge=0, description="First retry waits this long.")
    backoff_max_s: float = Field(default=8.0, ge=0, description="No single wait is longer.")

    @field_validator("model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("model must name a litellm model, e.g. 'openai/gpt-4o-mini'")
        return value.strip()

    @field_validator("api_base", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @classmethod
    def from_recall_config(cls, config: RecallConfig, **overrides: object) -> LLMConfig:
        """Build from ``RecallConfig.llm_*`` (itself read from ``LLM_MODEL``, ``LLM_API_KEY``...).

        Raises:
            InvalidInputError: no model is configured, or an override is not acceptable.
        """
        if config.llm_model is None:
            raise InvalidInputError(
                "No LLM is configured: set LLM_MODEL (e.g. 'openai/gpt-4o-mini') or pass "
                "RecallConfig(llm_model=...) / llm_config=LLMConfig(model=...)."
            )
        values: dict[str, Any] = {
            "model": config.llm_model,
            "api_key": config.llm_api_key,
            "api_base": config.llm_api_base,
            "timeout_s": config.llm_timeout_s,
            "max_retries": config.llm_max_retries,
            "max_tokens": config.llm_max_tokens,
        }
        values.update(overrides)
        try:
            return cls(**values)
        except ValueError as exc:
            raise InvalidInputError(f"Invalid LLM configuration: {exc}") from exc

    def __repr_args__(self) -> Iterator[tuple[str | None, object]]:
        for name, value in super().__repr_args__():
            yield name, redacted(value) if name == "api_base" and value else value

    def describe(self) -> str:
        """The model and endpoint, for error messages (never the key, nor a password
        or query in ``api_base``)."""
        where = f" at {redacted(self.api_base)}" if self.api_base else ""
        return f"{self.model!r}{where}"

    def secrets(self) -> tuple[str, ...]:
        """What no message may quote: the key and a password in ``api_base``."""
        found = [self.api_key.get_secret_value() if self.api_key is not None else ""]
        if self.api_base:
            with suppress(ValueError):  # unparsable: describe() shows only the scheme
                found.append(urlsplit(self.api_base).password or "")
        return tuple(s for s in found if s)
