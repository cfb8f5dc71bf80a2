"""Where ``RecallConfig`` values come from, and how a bad one is told.

The environment variables and the field each sets; a ConfigError message that
names the field, the variable it came from, and never a secret's value.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import ValidationError

from recall_engine.config.distributed import SECRET_FIELDS

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
    "RECALL_ENGINE_SENTENCE_VECTORS": "sentence_vectors",
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

_BLANK_IS_AN_ERROR = frozenset({"RECALL_ENGINE_DATA_DIR"})

# Field -> environment variable, for the fields ``load`` took from the environment,
# so that a ConfigError names the variable to fix.
_FROM_ENV: ContextVar[dict[str, str] | None] = ContextVar("recall_config_from_env", default=None)


def read_env(overrides: dict[str, object]) -> tuple[dict[str, object], dict[str, str]]:
    """The field values set in the environment for the fields ``overrides`` leaves
    unset (None), and field -> the variable each came from."""
    values: dict[str, object] = {}
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
