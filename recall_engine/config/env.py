"""Where ``RecallConfig`` values come from, and how a bad one is told.

``EnvSettings`` (pydantic-settings) declares the environment variables and the
field each sets: ``RECALL_ENGINE_<FIELD>`` unless the field names another
variable. A ConfigError message names the field, the variable it came from, and
never a secret's value.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import AliasGenerator, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from recall_engine.config.distributed import SECRET_FIELDS

ENV_PREFIX = "RECALL_ENGINE_"


def _variable(field: str) -> str:
    return ENV_PREFIX + field.upper()


class EnvSettings(BaseSettings):
    """The configuration fields read from the environment, each as its raw text.

    A field's variable is ``RECALL_ENGINE_<FIELD>`` (upper case) unless its
    ``validation_alias`` names another; names are case-sensitive. The values are
    checked (and converted) by ``RecallConfig``, so an error reads the same
    whether a value came from here or from an argument.
    """

    # Case-sensitive, as the variables have always been read; that is why the prefix
    # is applied by the alias generator (pydantic-settings' env_prefix would keep the
    # field name's lower case).
    model_config = SettingsConfigDict(
        case_sensitive=True,
        extra="ignore",
        hide_input_in_errors=True,
        alias_generator=AliasGenerator(validation_alias=_variable),
    )

    data_dir: str | None = None
    embedding_model: str | None = None
    embedding_batch_size: str | None = None
    embedding_backend: str | None = None
    embedding_threads: str | None = None
    embedding_precision: str | None = None
    embedding_cache_dir: str | None = None
    chunk_size: str | None = None
    chunk_overlap: str | None = None
    sentence_vectors: str | None = None
    settle_heap: str | None = None
    default_tenant: str | None = Field(default=None, validation_alias="RECALL_ENGINE_TENANT")
    graph_extractor: str | None = None
    llm_model: str | None = Field(default=None, validation_alias="LLM_MODEL")
    llm_api_key: str | None = Field(default=None, validation_alias="LLM_API_KEY")
    llm_api_base: str | None = Field(default=None, validation_alias="LLM_API_BASE")
    llm_timeout_s: str | None = Field(default=None, validation_alias="LLM_TIMEOUT")
    llm_max_retries: str | None = Field(default=None, validation_alias="LLM_MAX_RETRIES")
    llm_max_tokens: str | None = Field(default=None, validation_alias="LLM_MAX_TOKENS")
    allow_cypher_query: str | None = Field(default=None, validation_alias="ALLOW_CYPHER_QUERY")
    router_rules: str | None = None
    session_ttl_days: str | None = None
    max_item_chars: str | None = None
    max_query_chars: str | None = None
    trace_redact: str | None = None
    trace_max_chars: str | None = None
    state_url: str | None = None
    redis_url: str | None = None
    graph_url: str | None = None
    vector_uri: str | None = None
    vector_refresh_s: str | None = None
    writer_lease_ttl_s: str | None = None
    writer_wait_s: str | None = None


# Environment variable -> config field.
ENV_VARS: dict[str, str] = {
    str(info.validation_alias): name for name, info in EnvSettings.model_fields.items()
}

_BLANK_IS_AN_ERROR = frozenset({"RECALL_ENGINE_DATA_DIR"})

# Field -> environment variable, for the fields ``load`` took from the environment,
# so that a ConfigError names the variable to fix.
_FROM_ENV: ContextVar[dict[str, str] | None] = ContextVar("recall_config_from_env", default=None)


def read_env(overrides: dict[str, object]) -> tuple[dict[str, object], dict[str, str]]:
    """The environment's values for the fields that ``overrides`` leaves unset.

    Args:
        overrides: explicit field values; a field set here (not None) is not read.

    Returns:
        Field -> the variable's text (stripped), and field -> the variable it came from.
    """
    values: dict[str, object] = {}
    from_env: dict[str, str] = {}
    for field, raw in EnvSettings().model_dump(exclude_none=True).items():
        if overrides.get(field) is not None:
            continue
        env_name = str(EnvSettings.model_fields[field].validation_alias)
        # A blank variable is unset, except where unset means "here": a blank
        # data dir is a script's empty $VAR, and would silently use ./.recall_engine.
        if raw.strip() != "" or env_name in _BLANK_IS_AN_ERROR:
            values[field] = raw.strip()
            from_env[field] = env_name
    return values, from_env


@contextmanager
def named_variables(from_env: dict[str, str]) -> Iterator[None]:
    """Within it, a config error names the variable each field in ``from_env`` came from."""
    token = _FROM_ENV.set(from_env)
    try:
        yield
    finally:
        _FROM_ENV.reset(token)


def describe(exc: ValidationError) -> str:
    """One line per bad field: its name (and environment variable), the value, the fix."""
    from_env = _FROM_ENV.get() or {}
    lines = []
    for error in exc.errors():
        loc = error.get("loc", ())
        field = str(loc[0]) if loc else ""
        where = f"{field} (from ${from_env[field]})" if field in from_env else field
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        value = error.get("input")
        hide = error.get("type") == "value_error" or isinstance(value, dict)
        shown = "" if hide or field in SECRET_FIELDS else f" (got {value!r})"
        lines.append(f"{where}: {message}{shown}" if where else message)
    return "Invalid recall-engine configuration: " + "; ".join(lines) + "."
