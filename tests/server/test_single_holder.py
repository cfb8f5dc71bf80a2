"""Real ``serve`` processes on one data dir (issue 16, findings 1 and 5): the
holder file holds no key and goes away on SIGTERM; a second server exits at
start with the holder's pid on one line instead of answering 503s."""

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import httpx

from recall_engine import RecallEngine
from recall_engine.storage.store_lock import HOLDER_FILE
from recall_engine.testing import DeterministicEmbedder

TENANT_KEY = "tenant-secret-" + "k7" * 12
ADMIN_KEY = "admin-secret-" + "q9" * 12


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(data, port: int) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "recall_engine.server", "--data-dir", str(data)]
    command += ["--port", str(port), "--api-key", f"acme={TENANT_KEY}", "--admin-key", ADMIN_KEY]
    return subprocess.Popen(
        [*command, "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_ready(base: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180  # a deadline for a hung start, not a measurement
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1]
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not start")


def _keys_on_disk(root) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            found += [path.name for key in (TENANT_KEY, ADMIN_KEY) if key.encode() in raw]
    return found


def test_one_server_per_data_dir_and_no_key_on_disk(tmp_path):
    data = tmp_path / "data"
    port = _free_port()
    first = _serve(data, port)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", first)
        created = httpx.post(  # opens the tenant's store (where holder files used to be)
            f"http://127.0.0.1:{port}/tenants/create",
            json={"tenant_id": "acme"},
            headers={"Authorization": f"Bearer {TENANT_KEY}"},
            timeout=120,
        )
        assert created.status_code < 300, created.text
        holder = data / HOLDER_FILE
        assert stat.S_IMODE(holder.stat().st_mode) == 0o600
        info = json.loads(holder.read_text())
        assert info["pid"] == first.pid and info["program"] == "recall_engine.server"
        assert set(info) == {"pid", "host", "since", "program"}
        assert [p.name for p in data.rglob("*holder*")] == [HOLDER_FILE]
        assert _keys_on_disk(data) == []

        second = _serve(data, _free_port())
        out, err = second.communicate(timeout=180)
        assert second.returncode == 1
        (line,) = err.strip().splitlines()  # one line, no traceback
        assert line.startswith(f"error: The data dir is in use by process {first.pid} ")
        assert "recall-engine serve" in line
        assert TENANT_KEY not in line + out and ADMIN_KEY not in line + out
        assert str(tmp_path) not in line
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert first.returncode == 128 + signal.SIGTERM
    assert not holder.exists()
    assert _keys_on_disk(data) == []
    RecallEngine(data, embedder=DeterministicEmbedder()).close()  # the data dir is free again
    assert os.listdir(data)  # the first server's stores are still there
