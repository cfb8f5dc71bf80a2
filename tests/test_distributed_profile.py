"""The suites' distributed mode really runs on the four servers, and leaves
nothing behind on them: the engine ``built("distributed", ...)`` keeps its graph on
FalkorDB, its vectors on moto S3, its state in a Postgres schema and its query
vectors in Redis; afterwards the schema, the Redis keys and the graph are gone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psycopg
import redis

from recall_engine import SearchType
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from tests.distributed_profile import PG_URL, REDIS_URL, distributed_profile
from tests.remote_fixture import built
from tests.storage import falkordb_live


def _schemas(name: str) -> list[str]:
    with psycopg.connect(PG_URL) as conn:
        rows = conn.execute(
            "SELECT schema_name FROM information_schema.schemata WHERE schema_name = %s", (name,)
        ).fetchall()
    return [row[0] for row in rows]


def _keys(client: redis.Redis, name: str) -> list[bytes]:
    return list(client.scan_iter(match=f"recall-engine:{name}:*", count=500))


def test_the_distributed_mode_uses_every_server_and_cleans_up(tmp_path: Path, hash_embedder):
    redis_client = redis.Redis.from_url(REDIS_URL)
    falkor = redis.Redis(
        port=falkordb_live.server().port, password=falkordb_live.PASSWORD, host="127.0.0.1"
    )
    try:
        with built("distributed", tmp_path / "data", embedder=hash_embedder) as engine:
            name = engine.config.redis_url.rsplit("prefix=", 1)[1]

            async def fill() -> None:
                await engine.remember("Ada Lovelace worked with Charles Babbage.")
                assert await engine.recall("Ada Lovelace", SearchType.CHUNKS)

            asyncio.run(fill())
            store = engine.store()
            assert engine.state.dialect == "postgres" and _schemas(name) == [name]
            assert isinstance(store.graph, FalkorGraphStore) and store.graph.document_ids()
            assert store.shared is not None and store.shared.uri.startswith("s3://")
            assert not (tmp_path / "data" / "identity.sqlite3").exists()
            assert _keys(redis_client, name), "no query vector was cached in Redis"
            assert _keys(falkor, name), "no graph on the FalkorDB server"
        assert _schemas(name) == []
        assert _keys(redis_client, name) == [] and _keys(falkor, name) == []
    finally:
        redis_client.close()
        falkor.close()


def test_the_profile_as_environment_variables_is_the_same_config(monkeypatch, tmp_path) -> None:
    from recall_engine.config import RecallConfig

    with distributed_profile() as profile:
        for variable, value in profile.env().items():
            monkeypatch.setenv(variable, value)
        from_env = RecallConfig.load(data_dir=tmp_path)
        given = RecallConfig(data_dir=tmp_path, **profile.options())
        assert from_env.vector_options() == given.vector_options()
        for name in ("graph_url", "vector_uri", "state_url", "redis_url"):
            assert getattr(from_env, name) == getattr(given, name)
        assert falkordb_live.PASSWORD not in repr(profile)
