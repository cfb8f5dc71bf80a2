"""The distributed profile's fields of ``RecallConfig``: shared server URLs and
vectors on S3, each a typed, checked field that ``RecallConfig`` declares.

A URL may carry a password and a storage option a key: repr() and JSON dumps
show the URLs redacted (``state.urls``), the key-like options are ``SecretStr``,
and no error quotes either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainSerializer, SecretStr

from recall_engine.core.errors import ConfigError
from recall_engine.state.urls import POSTGRES_SCHEMES, REDIS_SCHEMES, check_url, redacted

# A FalkorDB server speaks the Redis protocol: falkordb:// is redis:// by another name.
GRAPH_SCHEMES = ("falkordb", "redis", "rediss")
URL_FIELDS = frozenset({"state_url", "redis_url", "graph_url", "llm_api_base"})  # no password shown
SECRET_FIELDS = URL_FIELDS | {"llm_api_key", "vector_storage_options"}  # no error shows the value

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


def _server_url(field: str, schemes: tuple[str, ...]) -> Callable[[object], str | None]:
    def check(value: Any) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        try:
            return check_url(value, schemes=schemes, what=field)
        except ConfigError as exc:
            raise ValueError(str(exc).removeprefix(f"{field} ").rstrip(".")) from None

    return check


def _url_redacted(value: str | None) -> str | None:
    return None if value is None else redacted(value)


_JSON_REDACTED = PlainSerializer(_url_redacted, when_used="json")

ShownRedacted = Annotated[str | None, _JSON_REDACTED]
"""A URL that JSON dumps show without its password (``llm_api_base``)."""

StateUrl = Annotated[
    str | None,
    Field(
        description="postgresql://user:pass@host:5432/db[?schema=NAME]: users, grants, tenants, "
        "key digests, sessions, the ingest ledger and writer leases in Postgres, shared by "
        "replicas; None = SQLite files in the data dir.",
    ),
    BeforeValidator(_server_url("state_url", POSTGRES_SCHEMES)),
    _JSON_REDACTED,
]
RedisUrl = Annotated[
    str | None,
    Field(
        description="redis://[:pass@]host:6379/0[?prefix=NAME]: rate-limit buckets and query "
        "vectors shared by replicas, under keys 'recall-engine:NAME:'; None = per process.",
    ),
    BeforeValidator(_server_url("redis_url", REDIS_SCHEMES)),
    _JSON_REDACTED,
]
GraphUrl = Annotated[
    str | None,
    Field(
        description="falkordb://[:pass@]host:6379[?prefix=NAME] (or redis://): each tenant's "
        "graph is the FalkorDB graph 'recall-engine:[NAME:]graph:<tenant folder>' on that "
        "server, shared by replicas; None = an embedded Kuzu graph in the data dir. Needs "
        "the 'distributed' extra (the falkordb client).",
    ),
    BeforeValidator(_server_url("graph_url", GRAPH_SCHEMES)),
    _JSON_REDACTED,
]


def _s3_uri(value: object) -> str | None:
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


def _option_strings(value: object) -> dict[str, str | SecretStr]:
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


# Vectors, chunk text and full-text on object storage (the graph stays in data_dir).
VectorUri = Annotated[
    str | None,
    Field(
        description="s3://bucket/prefix: every tenant's LanceDB tables live at "
        "<vector_uri>/<tenant folder>, shared by every process that sets it; None = in data_dir.",
    ),
    BeforeValidator(_s3_uri),
]
VectorStorageOptions = Annotated[
    dict[str, str | SecretStr],
    Field(
        description="LanceDB storage options for vector_uri (endpoint, region, allow_http, "
        "aws_access_key_id, aws_secret_access_key, ...); RecallConfig.load fills the keys not "
        "given from $AWS_ENDPOINT_URL, $AWS_REGION, $AWS_ALLOW_HTTP, $AWS_ACCESS_KEY_ID, "
        "$AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN. The values of key-like options "
        "(key, secret, token, password) are kept as SecretStr: never in a repr, a JSON dump "
        "or an error.",
    ),
    BeforeValidator(_option_strings),
]
VectorRefresh = Annotated[
    float,
    Field(
        ge=0,
        le=3600,
        description="With vector_uri: a read sees every chunk another process committed "
        "more than this many seconds before it began (0: every read checks; one version "
        "request each); with graph_url too, also its datasets, entities, relations, events "
        "and summaries, each item whole once its graph commit happened.",
    ),
]


def plain_options(options: dict[str, str | SecretStr]) -> dict[str, str]:
    """Storage options with plain values, for the store that opens the tables."""
    return {k: v.get_secret_value() if isinstance(v, SecretStr) else v for k, v in options.items()}


def with_s3_env(values: dict[str, object]) -> None:
    """Fill the vector storage options that ``values`` does not give from AWS's own
    variables, when ``values`` puts the vectors on S3 (in place)."""
    if not values.get("vector_uri"):
        return
    given = values.get("vector_storage_options") or {}
    options = {} if not isinstance(given, dict) else dict(given)
    for env_name, key in S3_ENV_VARS.items():
        raw = os.environ.get(env_name, "").strip()
        if raw and key not in {str(k).strip().lower() for k in options}:
            options[key] = raw
    if isinstance(given, dict):
        values["vector_storage_options"] = options
