"""No key in clear anywhere a real ``recall-engine serve`` writes: every response
body and header and every log line of a scripted session (auth failures, 403s,
validation errors, admin key operations, a SIGTERM), and every file under its
data dir."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.live_uvicorn import free_port

ADMIN = "leak-admin-key-AAAAAAAAAAAAAAAA"
ACME = "leak-acme-key-BBBBBBBBBBBBBBBB"
GLOBEX = "leak-globex-key-CCCCCCCCCCCCCCC"
SPARE_ADMIN = "leak-spare-admin-DDDDDDDDDDDDDDD"  # seeded from the environment, never sent
SECRETS = (ADMIN, ACME, GLOBEX, SPARE_ADMIN)


def _session(base: str) -> tuple[list[httpx.Response], list[str]]:
    """Every response, and the keys the admin endpoints created (shown once, by design)."""
    seen: list[httpx.Response] = []
    created: list[str] = []

    def call(key: str | None, method: str, path: str, **kw) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        headers.update(kw.pop("headers", {}))
        response = httpx.request(method, base + path, headers=headers, timeout=60, **kw)
        seen.append(response)
        return response

    assert call(ADMIN, "POST", "/tenants/create", json={"tenant_id": "acme"}).status_code == 200
    memory = {"tenant_id": "acme", "memories": [{"text": "the launch is on Friday"}]}
    assert call(ACME, "POST", "/memories/add_memory", json=memory).status_code == 200
    call(None, "GET", "/metrics")
    call(ACME[:-1] + "X", "GET", "/metrics")  # a near miss of a real key
    call(ACME, "GET", "/metrics", headers={"Authorization": f"Basic {ACME}"})
    call(GLOBEX, "POST", "/recall/full_recall", json={"tenant_id": "acme", "query": "launch"})
    call(ACME, "POST", "/recall/full_recall", json={"tenant_id": "acme", "query": "x", "alpha": 9})
    call(ACME, "POST", "/api/v1/remember", json={"data": ACME, "tenantId": "globex"})
    call(ACME, "POST", "/api-keys/create_api_key", json={"tenant_id": "acme"})
    made = call(ADMIN, "POST", "/api-keys/create_api_key", json={"tenant_id": "globex"})
    created.append(made.json()["api_key"])
    listed = call(ADMIN, "GET", "/api-keys/list_api_keys").json()["keys"]
    acme_key = next(k["key_id"] for k in listed if k["tenant_id"] == "acme")
    rotated = call(ADMIN, "POST", "/api-keys/rotate_api_key", json={"key_id": acme_key})
    created.append(rotated.json()["api_key"])
    call(ACME, "GET", "/metrics")  # the rotated-away key: 401
    call(ADMIN, "POST", "/api-keys/revoke_api_key", json={"key_id": made.json()["key_id"]})
    call(ADMIN, "GET", "/openapi.json")
    return seen, created


@pytest.mark.parametrize(
    "seed",
    [
        # One server seeded through every path at once (a flag and the environment for
        # both kinds of key) in the default run; one server per path under -m slow.
        "mixed",
        pytest.param("env", marks=pytest.mark.slow),
        pytest.param("flags", marks=pytest.mark.slow),
    ],
)
def test_no_key_in_any_reply_log_line_or_file(tmp_path, seed):
    data = tmp_path / "data"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "RECALL_ENGINE_GRAPH_EXTRACTOR": "none"}
    command = [sys.executable, "-m", "recall_engine.cli", "--data-dir", str(data), "serve",
               "--port", str(port), "--log-level", "debug"]  # fmt: skip
    if seed == "flags":
        command += ["--admin-key", ADMIN, "--api-key", f"acme={ACME}", "--api-key",
                    f"globex={GLOBEX}"]  # fmt: skip
    elif seed == "mixed":
        command += ["--admin-key", ADMIN, "--api-key", f"acme={ACME}"]
        env["RECALL_ENGINE_ADMIN_KEY"] = SPARE_ADMIN
        env["RECALL_ENGINE_API_KEYS"] = f"globex={GLOBEX}"
    else:
        env["RECALL_ENGINE_ADMIN_KEY"] = ADMIN
        env["RECALL_ENGINE_API_KEYS"] = f"acme={ACME},globex={GLOBEX}"
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
            responses, created = _session(base)
            if seed == "mixed":  # the environment's admin key was seeded beside the flag's
                spare = {"Authorization": f"Bearer {SPARE_ADMIN}"}
                responses.append(httpx.get(base + "/metrics", headers=spare, timeout=60))
                assert responses[-1].status_code == 200, responses[-1].text
            held = [p for p in data.rglob("*") if p.is_file()]  # holder files exist now
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=60) == 128 + signal.SIGTERM  # a clean shutdown
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert any(r.status_code == 401 for r in responses) and any(
        r.status_code == 403 for r in responses
    )
    keys = [k.encode() for k in (*SECRETS, *created)]
    for response in responses:
        text = response.content + str(dict(response.headers)).encode()
        shown = response.json().get("api_key") if response.status_code == 200 else None
        if isinstance(shown, str) and shown in created:  # the one reply that hands it out
            text = text.replace(shown.encode(), b"<shown once>")
        assert not any(k in text for k in keys), (response.request.url, response.text[:300])
    lines = log.read_bytes().splitlines()
    assert lines, "the server logged nothing"
    for line in lines:
        assert not any(k in line for k in keys), line
    files = {p for p in data.rglob("*") if p.is_file()} | {p for p in held if p.exists()}
    for path in files:
        assert not any(k in Path(path).read_bytes() for k in keys), path
