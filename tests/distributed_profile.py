"""The full distributed profile for a test: a fresh graph prefix on the session's
FalkorDB server, a fresh ``s3://`` prefix on the session's moto server (with its
storage options), a fresh schema on the machine's Postgres and a fresh
``?prefix=`` on the machine's Redis.

    with distributed_profile() as profile:
        engine = RecallEngine(tmp_path / "data", embedder=..., **profile.options())
        # or, for a `recall-engine serve` process: env={**os.environ, **profile.env()}

On the way out the Postgres schema is dropped and the Redis keys and FalkorDB
graphs under the two prefixes are deleted (the moto server keeps its objects in
memory until the session ends). The FalkorDB and moto servers are started once per
session (``falkordb_live``, ``moto_s3``). Where Postgres, Redis or FalkorDB is
absent the test skips with a one-line reason.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.storage import falkordb_live, moto_s3

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"
# moto's storage option -> the AWS variable RecallConfig.load reads it from.
_AWS_ENV = {
    "endpoint": "AWS_ENDPOINT_URL",
    "region": "AWS_REGION",
    "allow_http": "AWS_ALLOW_HTTP",
    "aws_access_key_id": "AWS_ACCESS_KEY_ID",
    "aws_secret_access_key": "AWS_SECRET_ACCESS_KEY",
}


@dataclass(frozen=True)
class Profile:
    """Where one test's distributed stores live."""

    graph_url: str = field(repr=False)  # holds the FalkorDB password
    vector_uri: str
    vector_storage_options: dict[str, str] = field(repr=False)
    state_url: str
    redis_url: str
    name: str
    """The schema name, Redis prefix and graph prefix (one fresh name for all three)."""

    def options(self, **extra: Any) -> dict[str, Any]:
        """``RecallEngine`` keyword options for the profile (``extra`` added)."""
        return {
            "graph_url": self.graph_url,
            "vector_uri": self.vector_uri,
            "vector_storage_options": dict(self.vector_storage_options),
            "state_url": self.state_url,
            "redis_url": self.redis_url,
            **extra,
        }

    def env(self) -> dict[str, str]:
        """The same as environment variables, for a ``recall-engine`` process."""
        env = {
            "RECALL_ENGINE_GRAPH_URL": self.graph_url,
            "RECALL_ENGINE_VECTOR_URI": self.vector_uri,
            "RECALL_ENGINE_STATE_URL": self.state_url,
            "RECALL_ENGINE_REDIS_URL": self.redis_url,
        }
        for option, variable in _AWS_ENV.items():
            env[variable] = self.vector_storage_options[option]
        return env


def postgres_or_skip() -> None:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception:
        pytest.skip("Postgres is not reachable on 127.0.0.1:5432")


def _redis_or_skip() -> Any:
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
    except Exception:
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    return client


@contextmanager
def distributed_profile() -> Iterator[Profile]:
    """A fresh ``Profile`` on the four servers, cleaned up afterwards (see the module)."""
    postgres_or_skip()
    redis_client = _redis_or_skip()
    falkor = falkordb_live.server()  # skips where FalkorDB cannot be built
    s3 = moto_s3.server()
    name = f"re_dist_{secrets.token_hex(6)}"
    profile = Profile(
        graph_url=falkor.url(prefix=name),
        vector_uri=s3.fresh_uri(),
        vector_storage_options=dict(s3.options),
        state_url=f"{PG_URL}?schema={name}",
        redis_url=f"{REDIS_URL}?prefix={name}",
        name=name,
    )
    try:
        yield profile
    finally:
        try:
            _drop(redis_client, f"recall-engine:{name}:*")
            _drop_graphs(falkor, f"recall-engine:{name}:*")
            _drop_schema(name)
        finally:
            redis_client.close()


def _drop(client: Any, pattern: str) -> None:
    keys = list(client.scan_iter(match=pattern, count=500))
    if keys:
        client.delete(*keys)


def _drop_graphs(falkor: falkordb_live.LiveFalkor, pattern: str) -> None:
    import redis

    client = redis.Redis(host="127.0.0.1", port=falkor.port, password=falkordb_live.PASSWORD)
    try:
        _drop(client, pattern)  # a graph is one key; DEL frees it
    finally:
        client.close()


def _drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
