"""Fixtures of the state tests: the machine's Postgres (a schema of its own per
test, dropped afterwards) and Redis (a key prefix of its own, deleted afterwards);
a test that needs one skips, with a one-line reason, only where it is absent."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from recall_engine.config import RecallConfig
from recall_engine.state.sql import SqlDatabase

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"


def postgres_or_skip() -> None:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception:
        pytest.skip("Postgres is not reachable on 127.0.0.1:5432")


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A fresh schema name on the machine's Postgres, dropped after the test."""
    postgres_or_skip()
    schema = f"re_test_{secrets.token_hex(6)}"
    try:
        yield schema
    finally:
        drop_schema(schema)


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A fresh key prefix on the machine's Redis; its keys are deleted after the test."""
    try:
        import redis

        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
    except Exception:
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    prefix = f"re_test_{secrets.token_hex(6)}"
    try:
        yield prefix
    finally:
        keys = list(client.scan_iter(match=f"recall-engine:{prefix}:*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture(params=["sqlite", "postgres"])
def open_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], SqlDatabase]]:
    """Opens another connection to one state database (SQLite in a data dir, or a
    Postgres schema), as another replica would; each is closed after the test."""
    from recall_engine.state.store import open_state

    if request.param == "sqlite":
        config = RecallConfig(data_dir=tmp_path / "data")
        schema = None
    else:
        postgres_or_skip()
        schema = f"re_test_{secrets.token_hex(6)}"
        config = RecallConfig(data_dir=tmp_path / "data", state_url=f"{PG_URL}?schema={schema}")
    opened: list[SqlDatabase] = []

    def opener() -> SqlDatabase:
        opened.append(open_state(config))
        return opened[-1]

    try:
        yield opener
    finally:
        for db in opened:
            db.close()
        if schema is not None:
            drop_schema(schema)
