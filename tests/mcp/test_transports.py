"""``recall-engine mcp`` as a user runs it: a stdio subprocess driven by the SDK's stdio
client, and the stateless streamable-HTTP app on 127.0.0.1 behind bearer keys."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
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
from recall_engine.tenants.registry import ADMIN

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
        data_id, answer = await round_trip(client)
        status = payload(await client.call_tool("status", {}))
    first = answer["results"][0]
    assert first["source"] == "graph" and first["sources"][0]["data_id"] == data_id
    assert first["sources"][0]["chunk_id"]
    assert status["datasets"][0]["items"] == 0


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
