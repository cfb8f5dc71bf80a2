"""State URLs never show a password; Postgres migrations apply once."""

from __future__ import annotations

import secrets

import pytest

from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.state.urls import POSTGRES_SCHEMES, check_url, redacted

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def test_redacted_drops_the_password_and_query() -> None:
    shown = redacted("postgresql://app:hunter2secret@db:5432/recall?password=hunter2secret")
    assert shown == "postgresql://app:***@db:5432/recall"


def test_a_bad_scheme_is_a_config_error_without_the_password() -> None:
    with pytest.raises(ConfigError) as info:
        check_url("mysql://app:hunter2secret@db/recall", schemes=POSTGRES_SCHEMES, what="state URL")
    assert "hunter2secret" not in str(info.value) and "postgresql://" in str(info.value)


def test_an_unreachable_server_names_the_url_without_its_password() -> None:
    from recall_engine.state.postgres import PostgresDatabase

    with pytest.raises(StoreError) as info:
        PostgresDatabase("postgresql://app:hunter2secret@127.0.0.1:1/recall")
    assert "hunter2secret" not in str(info.value)
    assert "postgresql://app:***@127.0.0.1:1/recall" in str(info.value)


def test_migrating_twice_applies_nothing_the_second_time() -> None:
    psycopg = pytest.importorskip("psycopg")
    try:
        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception:
        pytest.skip("Postgres is not reachable on 127.0.0.1:5432")
    from recall_engine.state.migrate import migrate, migrations

    schema = f"re_test_{secrets.token_hex(6)}"
    try:
        with psycopg.connect(PG_URL, autocommit=True, options=f"-c search_path={schema}") as conn:
            assert migrate(conn, schema) == [m.version for m in migrations()]
            assert migrate(conn, schema) == []
            rows = conn.execute("SELECT version FROM schema_version").fetchall()
            assert [r[0] for r in rows] == [m.version for m in migrations()]
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
