"""`.ci/services.py` (what `make services` runs): start, reuse, print, stop, idempotently.

Slow: on a machine where FalkorDB was never built, the first start builds it (minutes).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.live_uvicorn import free_port

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "services.py"
pytestmark = pytest.mark.slow


def _run(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), command],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )


def _pairs(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _graph_query(port: int) -> bytes:
    words = ["GRAPH.QUERY", "svc_test", "CREATE (:P {n: 1}) RETURN 1"]
    command = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(command.encode())
        return conn.recv(4096)


def _closed(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return True
    return False


def test_start_twice_prints_the_same_config_and_stop_stops_only_what_it_started(tmp_path):
    falkor, s3 = free_port(), free_port()
    env = {
        **os.environ,
        "RECALL_ENGINE_SERVICES_DIR": str(tmp_path),
        "RECALL_ENGINE_FALKORDB_PORT": str(falkor),
        "RECALL_ENGINE_S3_PORT": str(s3),
    }
    try:
        first = _pairs(_run(env, "start").stdout)
        pids = {p.name: p.read_text() for p in tmp_path.glob("*.pid")}
        second = _pairs(_run(env, "start").stdout)
        assert first == second
        assert {p.name: p.read_text() for p in tmp_path.glob("*.pid")} == pids
        assert first["RECALL_ENGINE_GRAPH_URL"] == f"falkordb://127.0.0.1:{falkor}"
        assert first["RECALL_ENGINE_VECTOR_URI"].startswith("s3://")
        assert first["AWS_ENDPOINT_URL"] == f"http://127.0.0.1:{s3}"
        assert first["RECALL_ENGINE_STATE_URL"].startswith("postgresql://")
        assert first["RECALL_ENGINE_REDIS_URL"].startswith("redis://127.0.0.1:")
        assert b"Nodes created: 1" in _graph_query(falkor)
        bucket = first["RECALL_ENGINE_VECTOR_URI"].split("/")[2]
        with urllib.request.urlopen(f"http://127.0.0.1:{s3}/{bucket}", timeout=5) as reply:
            assert reply.status == 200
    finally:
        _run(env, "stop")
    assert _closed(falkor) and _closed(s3)
    assert not list(tmp_path.glob("*.pid"))
    _run(env, "stop")  # a second stop is a no-op
    # the machine's Redis was reused, not started, so stopping left it running
    assert not _closed(int(first["RECALL_ENGINE_REDIS_URL"].rsplit(":", 1)[1].split("/")[0]))
