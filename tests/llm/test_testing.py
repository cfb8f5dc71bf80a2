"""The shipped test doubles: fake server, deterministic embedder, network guard."""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.request

import numpy as np
import pytest

from recall_engine.embedding import Embedder
from recall_engine.testing import (
    DeterministicEmbedder,
    FakeLLMServer,
    NetworkBlockedError,
    ScriptedReply,
    block_network,
    network_guard_installed,
)


def post(url: str, payload: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_fake_server_scripts_replies_and_records_requests():
    def echo(request: dict) -> str:
        return "echo: " + request["messages"][-1]["content"]

    with FakeLLMServer("first", echo, ScriptedReply.error(402), default="later") as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        payload = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        url = server.base_url + "/chat/completions"
        assert post(url, payload)[1]["choices"][0]["message"]["content"] == "first"
        assert post(url, payload)[1]["choices"][0]["message"]["content"] == "echo: hi"
        status, body = post(url, payload)
        assert status == 402 and body["error"]["type"] == "insufficient_quota"
        assert post(url.replace("/v1", ""), payload)[1]["choices"][0]["message"]["content"] == (
            "later"
        )
        assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 3 + [
            "/chat/completions"
        ]
        assert server.last_request.message("user") == "hi"


def test_fake_server_budget_error_envelope():
    reply = ScriptedReply.error(429, "Budget exceeded", error_type="budget_exceeded")
    assert reply.body is not None
    assert json.loads(reply.body)["error"]["type"] == "budget_exceeded"


def test_fake_server_stops_promptly_with_a_slow_reply_pending():
    import http.client
    import threading

    server = FakeLLMServer(ScriptedReply.slow(30)).start()
    url = server.base_url + "/chat/completions"
    answers: list[object] = []

    def client() -> None:
        with contextlib.suppress(OSError, http.client.HTTPException):
            answers.append(post(url, {}))  # the server hangs up on stop()

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    while not server.requests and thread.is_alive():  # wait for the request to be in
        thread.join(timeout=0.01)
    assert server.requests  # its reply is 30 s away
    server.stop()
    thread.join(timeout=25)  # a bound for a hung test, short of the reply's 30 s
    # The pending reply was cut by stop(), not waited for and served.
    assert not thread.is_alive() and answers == []


def test_fake_server_fixture_is_usable(fake_llm_server: FakeLLMServer):
    assert fake_llm_server.requests == []


def test_deterministic_embedder_implements_the_protocol():
    embedder = DeterministicEmbedder(dimension=64)
    assert isinstance(embedder, Embedder)
    assert embedder.dimension == 64
    vectors = embedder.embed(["Einstein was born in Ulm", "", "ulm einstein born"])
    assert vectors.shape == (3, 64) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert embedder.embed([]).shape == (0, 64)


def test_deterministic_embedder_is_stable_across_processes():
    import subprocess
    import sys

    code = (
        "from recall_engine.testing import DeterministicEmbedder;"
        "print(DeterministicEmbedder(16).embed(['hello world'])[0].round(6).tolist())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    here = DeterministicEmbedder(16).embed(["hello world"])[0].round(6).tolist()
    assert outputs == {f"{here}\n"}


def test_similar_texts_get_similar_vectors():
    e = DeterministicEmbedder()
    a, b, c = e.embed(
        ["Einstein was born in Ulm", "Where was Einstein born", "Pasta recipes with basil"]
    )
    assert float(a @ b) > float(a @ c) + 0.2


def test_the_session_guard_is_on():
    assert network_guard_installed()  # installed by tests/conftest.py


@pytest.mark.parametrize(
    "call",
    [
        lambda: socket.create_connection(("192.0.2.1", 443), timeout=1),
        lambda: socket.getaddrinfo("llm-provider.invalid", 443),
        lambda: socket.socket().connect(("198.51.100.1", 53)),
        lambda: socket.socket().connect_ex(("2001:db8::1", 80)),
        lambda: urllib.request.urlopen("https://llm-provider.invalid/v1/models", timeout=1),
    ],
    ids=["create_connection", "getaddrinfo", "connect", "connect_ex", "urlopen"],
)
def test_guard_blocks_non_local_addresses(call):
    with block_network(), pytest.raises((NetworkBlockedError, urllib.error.URLError)) as info:
        call()
    assert "blocked" in str(info.value)


def test_guard_allows_loopback():
    with block_network(), FakeLLMServer() as server:
        for host in ("127.0.0.1", "localhost"):
            with socket.create_connection((host, server.port), timeout=2):
                pass
        assert socket.getaddrinfo("localhost", server.port)
