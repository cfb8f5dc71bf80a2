"""Engines and servers that share a state database and a Redis server: what one
replica writes (users, grants, tenants, keys, sessions) another sees, rate
limits are one budget, and no URL's password reaches an error, a log or a repr."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from recall_engine import RecallEngine
from recall_engine.core.errors import StoreError
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.server import ServerSettings, create_app
from recall_engine.state.redis_cache import SharedQueryEmbedder
from recall_engine.tenants.registry import ADMIN
from tests.live_uvicorn import start_in_thread

ROOT = Path(__file__).resolve().parents[2]
PG = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
SECRET = "hunter2secret"


@pytest.fixture
def pair(tmp_path: Path, pg_schema: str, hash_embedder) -> Iterator[tuple[RecallEngine, ...]]:
    """Two engines, each on its own data dir, sharing one Postgres schema."""
    url = f"{PG}?schema={pg_schema}"
    a = RecallEngine(tmp_path / "a", embedder=hash_embedder, state_url=url)
    b = RecallEngine(tmp_path / "b", embedder=hash_embedder, state_url=url)
    yield a, b
    a.close()
    b.close()


async def test_two_engines_on_one_schema_see_each_others_state(
    pair: tuple[RecallEngine, ...],
) -> None:
    a, b = pair
    ann = a.identity.create_user("t", "ann")
    a.identity.grant("t", "d1", ann.id, "write")
    assert [u.name for u in b.identity.users("t")] == ["ann"]
    assert b.identity.access("t", ann, {"d1": "docs"}) == {"d1": "write"}
    await a.create_tenant("acme")
    record, key = a.tenants.registry.create_key("acme")
    assert b.tenants.registry.key_tenant(key) == "acme"
    assert "acme" in b.tenants.registry.tenants()
    a.tenants.registry.revoke_key(record.key_id)
    assert b.tenants.registry.key_tenant(key) is None  # a revoked key stops everywhere
    a.sessions.append("t", "u", "s", question="q1", context="c", answer="a1")
    assert [r.answer for r in b.sessions.entries("t", "u", "s")] == ["a1"]
    assert not (Path(a.config.data_dir) / "identity.sqlite3").exists()  # all in Postgres


async def test_a_remembered_item_is_recalled_through_the_shared_state(
    pair: tuple[RecallEngine, ...],
) -> None:
    a, _ = pair
    await a.remember("The Zephyr build failed with error E42.", dataset_name="ops")
    results = await a.recall("Which error did the Zephyr build fail with?", "CHUNKS")
    assert any("E42" in r.text for r in results)


def test_a_key_made_by_the_cli_in_another_process_opens_the_server(
    pair: tuple[RecallEngine, ...], pg_schema: str, tmp_path: Path
) -> None:
    a, _ = pair
    env = {**os.environ, "RECALL_ENGINE_STATE_URL": f"{PG}?schema={pg_schema}"}
    made = subprocess.run(
        [sys.executable, "-m", "recall_engine.cli", "--data-dir", str(tmp_path / "cli"),
         "keys", "create", "--admin"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert a.tenants.registry.key_tenant(made.stdout.strip()) == ADMIN


def test_the_default_state_is_the_data_dirs_files(tmp_path: Path, hash_embedder) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    try:
        assert engine.state.dialect == "sqlite"
        engine.identity.create_user("t", "ann")
        assert (tmp_path / "data" / "identity.sqlite3").is_file()
        assert not (tmp_path / "data" / "state.sqlite3").exists()  # made on its first write
    finally:
        engine.close()


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://nobody:{SECRET}@127.0.0.1:5432/test",  # refused by the server
        f"postgresql://app:{SECRET}@127.0.0.1:1/recall",  # nothing listens
    ],
)
def test_a_state_store_that_refuses_names_it_without_the_password(
    url: str, tmp_path: Path, hash_embedder, caplog: pytest.LogCaptureFixture
) -> None:
    if "5432" in url:
        pytest.importorskip("psycopg")
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreError) as info:
        RecallEngine(tmp_path / "data", embedder=hash_embedder, state_url=url)
    assert SECRET not in str(info.value) and SECRET not in caplog.text
    assert ":***@127.0.0.1" in str(info.value)
    assert not (tmp_path / "data").exists()  # nothing changed


def _serve(engine: RecallEngine, **settings: object) -> tuple[str, object]:
    port, server, thread = start_in_thread(create_app(engine, ServerSettings(**settings)))
    return f"http://127.0.0.1:{port}", (server, thread)


def _stop(handle: object) -> None:
    server, thread = handle  # type: ignore[misc]
    server.should_exit = True
    thread.join(timeout=10)


def test_two_servers_share_one_rate_limit_budget(
    pair: tuple[RecallEngine, ...], redis_prefix: str
) -> None:
    a, b = pair
    a.tenants.registry.add_key("acme-key-0000000000000", "acme")
    redis_url = f"{REDIS}?prefix={redis_prefix}"
    servers = [_serve(e, rate=0.001, burst=3, redis_url=redis_url) for e in (a, b)]
    headers = {"Authorization": "Bearer acme-key-0000000000000"}
    try:
        codes = []
        for n in range(5):
            base = servers[n % 2][0]  # alternate replicas
            r = httpx.get(f"{base}/tenants/sub_tenant_ids", params={"tenant_id": "acme"},
                          headers=headers, timeout=30)  # fmt: skip
            codes.append(r.status_code)
        assert codes[3:] == [429, 429] and 429 not in codes[:3]
    finally:
        for _, handle in servers:
            _stop(handle)


def test_redis_down_answers_503_without_the_password(
    tmp_path: Path, hash_embedder, caplog: pytest.LogCaptureFixture
) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    base, handle = _serve(engine, auth=False, redis_url=f"redis://app:{SECRET}@127.0.0.1:1/0")
    try:
        with caplog.at_level(logging.DEBUG):
            response = httpx.get(f"{base}/tenants/sub_tenant_ids", params={"tenant_id": "x"})
        assert response.status_code == 503
        assert SECRET not in response.text and SECRET not in caplog.text
    finally:
        _stop(handle)
        engine.close()


async def test_an_engine_with_redis_shares_its_query_vectors(
    tmp_path: Path, hash_embedder, redis_prefix: str
) -> None:
    url = f"{REDIS}?prefix={redis_prefix}"
    a = RecallEngine(tmp_path / "a", embedder=hash_embedder, redis_url=url)
    try:
        assert isinstance(a.embedder, SharedQueryEmbedder)
        assert SECRET not in repr(a.config)
        await a.remember("The Zephyr build failed with error E42.", dataset_name="ops")
        QUERY_CACHE.clear()
        results = await a.recall("Which error did the Zephyr build fail?", "CHUNKS")
        assert any("E42" in r.text for r in results)
        key = a.embedder.cache.key(hash_embedder.model_id, "Which error did the Zephyr build fail?")
        assert a.embedder.cache._redis.client.exists(key)
    finally:
        a.close()


def test_a_replica_whose_redis_does_not_answer_stops_at_start(tmp_path: Path) -> None:
    # Every request's rate limit asks Redis: a replica started without it would only
    # answer 503, so it stops at once with one line naming the setting.
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_ENGINE_")}
    env["RECALL_ENGINE_REDIS_URL"] = f"redis://app:{SECRET}@127.0.0.1:1/0"
    served = subprocess.run(
        [sys.executable, "-m", "recall_engine.cli", "--data-dir", str(tmp_path / "data"),
         "serve", "--no-auth", "--port", "0"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert served.returncode == 1
    error = served.stderr.strip().splitlines()[-1]
    assert error.startswith("error: Redis at redis://app:***@127.0.0.1:1/0 failed (connecting)")
    assert "RECALL_ENGINE_REDIS_URL" in error and SECRET not in served.stderr + served.stdout
