"""``recall-engine mcp`` as a user runs it: a stdio subprocess driven by the SDK's stdio
client, and the stateless streamable-HTTP app on 127.0.0.1 behind bearer keys."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from recall_engine import RecallEngine
from recall_engine.mcp import McpSettings
from recall_engine.mcp.transports import http_app
from recall_engine.server import ServerSettings
from recall_engine.server.auth import FAILURE_BURST
from recall_engine.tenants.registry import ADMIN
from tests.state.conftest import REDIS_URL

from .conftest import HISTORY, payload

ROOT = Path(__file__).resolve().parents[2]
ACME_KEY = "acme-mcp-key-0000000000"
ADMIN_KEY = "admin-mcp-key-000000000"


def command() -> tuple[str, list[str]]:
    """The installed ``recall-engine`` script next to this Python, else ``-m``."""
    script = Path(sys.executable).with_name("recall-engine")
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "recall_engine.cli"]


async def round_trip(client: Client) -> tuple[str, dict]:
    """remember -> recall -> forget; returns the data id and the recall answer."""
    stored = payload(await client.call_tool("remember", {"text": HISTORY[0], "dataset": "ops"}))
    data_id = stored["data_ids"][0]
    answer = payload(
        await client.call_tool(
            "recall", {"query": "Remington Rand", "query_type": "CHUNKS_LEXICAL"}
        )
    )
    forgot = payload(await client.call_tool("forget", {"data_ids": [data_id]}))
    assert forgot["chunks_removed"] == 1
    return data_id, answer


async def test_stdio_subprocess_round_trip(tmp_path: Path) -> None:
    program, prefix = command()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "RECALL_ENGINE_DATA_DIR": str(tmp_path / "data"),
    }
    params = StdioServerParameters(
        command=program, args=[*prefix, "mcp"], env=env, cwd=str(tmp_path)
    )
    async with Client(params, read_timeout_seconds=120) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names == ["remember", "recall", "forget", "status"]
        refused = await client.call_tool("recall", {"query": "x", "top_k": 0})
        assert refused.is_error  # and the server goes on serving
        data_id, answer = await round_trip(client)
        status = payload(await client.call_tool("status", {}))
    first = answer["results"][0]
    assert first["source"] == "graph" and first["sources"][0]["data_id"] == data_id
    assert first["sources"][0]["chunk_id"]
    assert status["datasets"][0]["items"] == 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_stops_the_stdio_server_and_frees_the_data_dir(tmp_path: Path) -> None:
    # The SDK reads stdin in a worker thread: asyncio's own Ctrl-C waited on it.
    program, prefix = command()
    run = subprocess.Popen(
        [program, *prefix, "--data-dir", str(tmp_path / "data"), "mcp"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert run.stdin is not None and run.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "test", "version": "1"}}  # fmt: skip
    run.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": hello}) + "\n")  # fmt: skip
    run.stdin.flush()
    assert '"id":1' in run.stdout.readline()  # serving
    run.send_signal(signal.SIGINT)  # stdin stays open, as in a terminal
    try:
        run.wait(timeout=60)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        pytest.fail("recall-engine mcp (stdio) went on after Ctrl-C")
    _, err = run.communicate()
    assert run.returncode == 130
    (line,) = err.splitlines()
    assert line.startswith("interrupted: ") and "Traceback" not in err
    RecallEngine(tmp_path / "data").close()  # the data dir is free


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(app: object) -> tuple[str, uvicorn.Server, threading.Thread]:
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws="none", proxy_headers=False
    )  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the MCP test server did not start")
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}/mcp", server, thread


@pytest.fixture
def http_engine(tmp_path: Path, hash_embedder) -> Iterator[RecallEngine]:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    engine.tenants.registry.add_key(ACME_KEY, "acme")
    engine.tenants.registry.add_key(ADMIN_KEY, ADMIN)
    yield engine
    engine.close()


@pytest.fixture
def served(http_engine: RecallEngine) -> Iterator[dict[str, str]]:
    """The app with auth on (at ``auth``) and off (at ``open``)."""
    urls = {}
    running = []
    for name, auth in (("auth", True), ("open", False)):
        url, server, thread = start(http_app(http_engine, McpSettings(), auth=auth))
        urls[name] = url
        running.append((server, thread))
    yield urls
    for server, thread in running:
        server.should_exit = True
        thread.join(timeout=10)


def keyed(url: str, key: str) -> object:
    return streamable_http_client(
        url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    )


async def test_http_round_trip_with_a_tenant_key(
    served: dict[str, str], http_engine: RecallEngine
) -> None:
    async with Client(keyed(served["auth"], ACME_KEY)) as client:  # type: ignore[arg-type]
        stored = payload(await client.call_tool("remember", {"text": HISTORY[1]}))
        # The key's tenant is where it lands.
        assert [i["data_id"] for i in await http_engine.list_items(tenant_id="acme")] == (
            stored["data_ids"]
        )
        assert await http_engine.list_items() == []
        data_id, answer = await round_trip(client)
        status = payload(await client.call_tool("status", {}))
    assert answer["results"][0]["sources"][0]["data_id"] == data_id
    assert status["tenant_id"] == "acme"


async def test_http_admin_key_and_no_auth_act_in_the_server_tenant(
    served: dict[str, str],
) -> None:
    async with Client(keyed(served["auth"], ADMIN_KEY)) as client:  # type: ignore[arg-type]
        assert payload(await client.call_tool("status", {}))["tenant_id"] == "default"
    async with Client(served["open"]) as client:
        data_id, _ = await round_trip(client)
        assert data_id


def test_http_without_or_with_a_wrong_key_is_refused(served: dict[str, str]) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    for key in (None, "wrong-key-0000000000000", ADMIN_KEY[:-1]):
        sent = {**headers, **({"Authorization": f"Bearer {key}"} if key else {})}
        response = httpx.post(served["auth"], json=body, headers=sent, timeout=30)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert "API key" in response.json()["message"]
        assert response.json()["message"].count("Authorization: Bearer <key>") == 1
    response = httpx.post(
        served["auth"],
        json=body,
        headers={**headers, "Authorization": f"Basic {ACME_KEY}"},
        timeout=30,
    )
    assert response.status_code == 401


async def test_the_sdk_client_with_a_wrong_key_fails_to_connect(served: dict[str, str]) -> None:
    with pytest.raises(ExceptionGroup) as caught:  # the SDK's task groups wrap it
        async with Client(keyed(served["auth"], "wrong-key-0000000000000")):  # type: ignore[arg-type]
            pytest.fail("connected with a wrong key")
    assert caught.group_contains(MCPError, match="error response")


def test_an_unknown_tool_name_is_a_usage_error(tmp_path: Path, capsys) -> None:
    from recall_engine import cli

    assert cli.main(["--data-dir", str(tmp_path / "d"), "mcp", "--tools", "recall,nope"]) == 2
    assert "--tools: unknown tool 'nope'" in capsys.readouterr().err


LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def _post(url: str, key: str | None) -> httpx.Response:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {key}"} if key else {})}
    return httpx.post(url, json=LIST_TOOLS, headers=headers, timeout=30)


@contextmanager
def _serve_one(engine: RecallEngine, **limits: object) -> Iterator[str]:
    url, server, thread = start(
        http_app(engine, McpSettings(), auth=True, limits=ServerSettings(**limits))  # type: ignore[arg-type]
    )
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def test_a_flood_of_wrong_keys_meets_429_and_the_valid_key_still_works(
    http_engine: RecallEngine,
) -> None:
    with _serve_one(http_engine, rate=0) as url:
        with httpx.Client(headers=ACCEPT, timeout=30) as client:
            codes = [
                client.post(
                    url,
                    json=LIST_TOOLS,
                    headers={"Authorization": f"Bearer {secrets.token_urlsafe(24)}"},
                )
                for _ in range(FAILURE_BURST + 30)
            ]
        assert {r.status_code for r in codes[:FAILURE_BURST]} == {401}
        refused = codes[-1]
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["error"] == "rate_limited"
        # The address's failures never lock out a valid key: the SDK client works.
        async with Client(keyed(url, ACME_KEY)) as sdk:  # type: ignore[arg-type]
            assert payload(await sdk.call_tool("status", {}))["tenant_id"] == "acme"


def test_requests_per_key_are_limited_as_serve_limits_them(http_engine: RecallEngine) -> None:
    with _serve_one(http_engine, rate=0.001, burst=2) as url:
        codes = [_post(url, ACME_KEY).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        assert _post(url, ADMIN_KEY).status_code == 200  # another key, its own bucket


async def test_an_undeclared_argument_over_http_is_refused_in_the_keys_tenant(
    served: dict[str, str], http_engine: RecallEngine
) -> None:
    async with Client(keyed(served["auth"], ACME_KEY)) as client:  # type: ignore[arg-type]
        result = await client.call_tool("remember", {"text": HISTORY[0], "tenant_id": "globex"})
    assert result.is_error and "'tenant_id'" in str(result.content[0].text)  # type: ignore[union-attr]
    assert await http_engine.list_items(tenant_id="acme") == []
    assert await http_engine.list_items(tenant_id="globex") == []


def test_mcp_takes_serves_limit_flags(tmp_path: Path, capsys) -> None:
    from recall_engine import cli

    args = cli._parser().parse_args(
        ["mcp", "--transport", "streamable-http", "--rate-limit", "5", "--burst", "7",
         "--trusted-proxy", "10.0.0.0/8"]
    )  # fmt: skip
    assert (args.rate_limit, args.burst, args.trusted_proxy) == (5.0, 7, ["10.0.0.0/8"])
    bad = ["--data-dir", str(tmp_path / "d"), "mcp", "--transport", "streamable-http"]
    assert cli.main([*bad, "--trusted-proxy", "proxy.local"]) == 2
    assert "'proxy.local' is not an IP address or CIDR" in capsys.readouterr().err


def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    from recall_engine import cli

    monkeypatch.setattr(uvicorn, "run", lambda app, **options: pytest.fail("served"))
    mcp = ["--data-dir", str(tmp_path / "d"), "mcp", "--transport", "streamable-http"]
    for port in ("99999", "-1", "http"):
        with pytest.raises(SystemExit) as exited:
            cli.main([*mcp, "--port", port])
        assert exited.value.code == 2
        assert "argument --port: " in capsys.readouterr().err


@pytest.fixture
def shared_redis() -> Iterator[str]:
    """A Redis URL with a fresh key prefix (as replicas name it); its keys go at teardown."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError:
        pytest.skip("Redis is not reachable on 127.0.0.1:6379")
    prefix = f"re_test_{secrets.token_hex(6)}"
    try:
        yield f"{REDIS_URL}?prefix={prefix}"
    finally:
        keys = list(client.scan_iter(match=f"recall-engine:{prefix}:*", count=500))
        if keys:
            client.delete(*keys)
        client.close()


def test_replicas_share_one_request_budget_in_redis(
    http_engine: RecallEngine, shared_redis: str
) -> None:
    from recall_engine.state.redis_buckets import RedisTokenBuckets

    shared = shared_redis
    with (
        _serve_one(http_engine, rate=0.001, burst=2, redis_url=shared) as first,
        _serve_one(http_engine, rate=0.001, burst=2, redis_url=shared) as second,
    ):
        assert [_post(first, ACME_KEY).status_code for _ in range(2)] == [200, 200]
        assert _post(second, ACME_KEY).status_code == 429  # the other replica's spend counts
        assert _post(second, ADMIN_KEY).status_code == 200
    app = http_app(http_engine, McpSettings(), auth=True, limits=ServerSettings(redis_url=shared))
    assert isinstance(app.auth.failures, RedisTokenBuckets)  # failed logins are shared too


def test_http_without_keys_says_how_to_make_one(tmp_path: Path, monkeypatch, capsys) -> None:
    """The warning's advice works: after ``recall-engine keys create`` it is gone."""
    from recall_engine import cli

    ran: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: ran.append(options))
    mcp = ["--data-dir", str(tmp_path / "d"), "mcp", "--transport", "streamable-http"]
    assert cli.main(mcp) == 0
    assert "create one with `recall-engine keys create TENANT`" in capsys.readouterr().err
    assert cli.main(["--data-dir", str(tmp_path / "d"), "keys", "create", "acme"]) == 0
    capsys.readouterr()
    assert cli.main(mcp) == 0
    assert "no API keys" not in capsys.readouterr().err
    assert len(ran) == 2
