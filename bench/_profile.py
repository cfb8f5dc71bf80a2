"""The distributed profile for a bench run: its servers and names of its own.

``started()`` runs the project's ``.ci/services.py start`` with a services folder
and FalkorDB / S3 ports of its own, so that it starts a FalkorDB and a moto S3
server for this run only (and reuses the machine's Postgres and Redis, as
``make services`` does), and stops exactly those afterwards. ``from_env()``
takes the ``KEY=VALUE`` lines of a running ``make services`` from the environment
instead. Either way the run writes under names of its own (a Postgres schema, a
Redis and FalkorDB key prefix, an S3 prefix) and removes them at the end.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from bench._loopback import free_port

ROOT = Path(__file__).resolve().parents[1]
SERVICES = ROOT / ".ci" / "services.py"
URL_KEYS = (
    "RECALL_ENGINE_GRAPH_URL",
    "RECALL_ENGINE_VECTOR_URI",
    "RECALL_ENGINE_STATE_URL",
    "RECALL_ENGINE_REDIS_URL",
)
AWS_KEYS = {
    "AWS_ENDPOINT_URL": "endpoint",
    "AWS_REGION": "region",
    "AWS_ALLOW_HTTP": "allow_http",
    "AWS_ACCESS_KEY_ID": "aws_access_key_id",
    "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key",
}


def _with_query(url: str, key: str, value: str) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != key] + [(key, value)]
    return parts._replace(query=urlencode(query)).geturl()


@dataclass(frozen=True)
class Profile:
    """The four settings (with names of this run's own) and the S3 options."""

    env: dict[str, str]
    name: str

    @property
    def overrides(self) -> dict[str, Any]:
        """``RecallEngine(**overrides)`` for an in-process engine on this profile."""
        return {
            "graph_url": self.env["RECALL_ENGINE_GRAPH_URL"],
            "vector_uri": self.env["RECALL_ENGINE_VECTOR_URI"],
            "vector_storage_options": {
                option: self.env[key] for key, option in AWS_KEYS.items() if key in self.env
            },
            "state_url": self.env["RECALL_ENGINE_STATE_URL"],
            "redis_url": self.env["RECALL_ENGINE_REDIS_URL"],
        }

    def process_env(self) -> dict[str, str]:
        """This process's environment with the profile's settings (for ``serve``)."""
        return {**os.environ, **self.env}


def _own_names(lines: dict[str, str]) -> Profile:
    missing = [key for key in URL_KEYS if not lines.get(key)]
    if missing:
        raise SystemExit(
            f"bench: the distributed profile lacks {', '.join(missing)}; run `make services` "
            "and export its lines (or leave out --reuse-env to start servers of this run's own)"
        )
    name = f"bench_scale_{secrets.token_hex(4)}"
    env = dict(lines)
    env["RECALL_ENGINE_GRAPH_URL"] = _with_query(lines["RECALL_ENGINE_GRAPH_URL"], "prefix", name)
    env["RECALL_ENGINE_REDIS_URL"] = _with_query(lines["RECALL_ENGINE_REDIS_URL"], "prefix", name)
    env["RECALL_ENGINE_STATE_URL"] = _with_query(lines["RECALL_ENGINE_STATE_URL"], "schema", name)
    env["RECALL_ENGINE_VECTOR_URI"] = f"{lines['RECALL_ENGINE_VECTOR_URI'].rstrip('/')}/{name}"
    return Profile(env=env, name=name)


def _parse(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key.isupper():
            out[key] = value
    return out


@contextlib.contextmanager
def _embedded_by_default() -> Iterator[dict[str, str]]:
    """Take the profile's variables out of this process's environment for the run
    (returned), so that an engine or server given none of them is embedded."""
    taken = {key: os.environ.pop(key) for key in (*URL_KEYS, *AWS_KEYS) if key in os.environ}
    try:
        yield taken
    finally:
        os.environ.update(taken)


@contextlib.contextmanager
def started(run_dir: Path) -> Iterator[Profile]:
    """A FalkorDB and a moto S3 server of this run (free ports, pid files in
    ``run_dir``) beside the machine's Postgres and Redis; stopped afterwards."""
    with _embedded_by_default(), _started(run_dir) as profile:
        yield profile


@contextlib.contextmanager
def _started(run_dir: Path) -> Iterator[Profile]:
    env = {
        **os.environ,
        "RECALL_ENGINE_SERVICES_DIR": str(run_dir),
        "RECALL_ENGINE_FALKORDB_PORT": str(free_port()),
        "RECALL_ENGINE_S3_PORT": str(free_port()),
    }
    command = [sys.executable, str(SERVICES)]
    try:
        out = subprocess.run([*command, "start"], env=env, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"bench: .ci/services.py start failed:\n{out.stderr[-2000:]}")
        profile = _own_names(_parse(out.stdout))
        try:
            yield profile
        finally:
            _remove_names(profile, servers_stop=True)
    finally:
        subprocess.run([*command, "stop"], env=env, capture_output=True, text=True)


@contextlib.contextmanager
def from_env() -> Iterator[Profile]:
    """The servers of a running ``make services`` (its lines in the environment)."""
    with _embedded_by_default() as lines:
        profile = _own_names({key: value for key, value in lines.items() if value})
        try:
            yield profile
        finally:
            _remove_names(profile, servers_stop=False)


def _remove_names(profile: Profile, *, servers_stop: bool) -> None:
    """Drop what the run wrote on servers that outlive it: the Postgres schema and
    the Redis keys always; the FalkorDB graphs and S3 objects when the servers
    stay up (``servers_stop`` False), since the ones started here keep all in memory."""
    import psycopg
    import redis

    state = urlsplit(profile.env["RECALL_ENGINE_STATE_URL"])._replace(query="").geturl()
    with psycopg.connect(state, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{profile.name}" CASCADE')
    root = f"recall-engine:{profile.name}:"
    url = urlsplit(profile.env["RECALL_ENGINE_REDIS_URL"])._replace(query="").geturl()
    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(match=f"{root}*", count=500))
        if keys:
            client.delete(*keys)
    if servers_stop:
        return
    graph = urlsplit(profile.env["RECALL_ENGINE_GRAPH_URL"])
    graph_url = graph._replace(scheme="redis", query="").geturl()
    with redis.Redis.from_url(graph_url) as client:
        for name in client.execute_command("GRAPH.LIST"):
            text = name.decode() if isinstance(name, bytes) else str(name)
            if text.startswith(root):
                client.execute_command("GRAPH.DELETE", text)
    _remove_s3_prefix(profile)


def _remove_s3_prefix(profile: Profile) -> None:
    import boto3

    options = profile.overrides["vector_storage_options"]
    bucket, _, prefix = profile.env["RECALL_ENGINE_VECTOR_URI"].removeprefix("s3://").partition("/")
    s3 = boto3.client(
        "s3",
        endpoint_url=options.get("endpoint"),
        region_name=options.get("region"),
        aws_access_key_id=options.get("aws_access_key_id"),
        aws_secret_access_key=options.get("aws_secret_access_key"),
    )
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{prefix}/"):
        objects = [{"Key": item["Key"]} for item in page.get("Contents", [])]
        if objects:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": objects})
