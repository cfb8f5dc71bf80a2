"""A real FalkorDB server for the tests: Redis 8 with the FalkorDB module, from the
build that ``.ci/services.py`` caches (``make services`` makes it; it is built here
when absent, which takes minutes once), in its own process on a free port of
127.0.0.1, started once per test session (per xdist worker) and stopped when it ends.

Tests keep apart by graph-name prefix (``url(prefix=...)``, ``fresh_store``); the
server keeps everything in memory until the session ends. It runs with a
per-query memory cap, as a deployment should (``falkordb_readonly``).
"""

from __future__ import annotations

import atexit
import importlib.util
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.live_uvicorn import free_port

ROOT = Path(__file__).resolve().parents[2]
QUERY_MEM_CAPACITY = 256 * 1024 * 1024
PASSWORD = "falk0r-NEVER-SHOWN-9c2e"
"""The server's password: a marker the leak tests look for."""


@dataclass(frozen=True)
class LiveFalkor:
    port: int

    def url(self, *, prefix: str | None = None, password: bool = True) -> str:
        """``falkordb://`` URL of the server, its graphs under ``prefix`` (fresh if None)."""
        auth = f":{PASSWORD}@" if password else ""
        return f"falkordb://{auth}127.0.0.1:{self.port}?prefix={prefix or uuid.uuid4().hex[:12]}"


_SERVER: LiveFalkor | None = None
_PROC: subprocess.Popen[bytes] | None = None
_SKIP: str | None = None


def _services() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ci_services", ROOT / ".ci" / "services.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def server() -> LiveFalkor:
    """The session's FalkorDB server (started on first use, stopped by ``shutdown``
    at the session's end); skips the test with a one-line reason when FalkorDB cannot
    be built here."""
    global _SERVER, _PROC, _SKIP
    if _SKIP is not None:
        pytest.skip(_SKIP)
    if _SERVER is None:
        try:
            bin_dir = _services()._falkor_bin()
        except (SystemExit, subprocess.CalledProcessError, OSError) as exc:
            _SKIP = f"FalkorDB cannot be built here ({exc}); run `make services` to see why"
            pytest.skip(_SKIP)
        _PROC, _SERVER = start(bin_dir)
        atexit.register(shutdown)  # where the session's end did not run
    return _SERVER


def shutdown() -> None:
    """Stop the session's server and its client, if started (tests/conftest.py calls it
    at the session's end: an xdist worker may be killed before atexit runs)."""
    global _SERVER, _PROC, _CLIENT
    client, proc, _CLIENT, _PROC, _SERVER = _CLIENT, _PROC, None, None, None
    if client is not None:
        client.close()
    if proc is not None:
        stop(proc)


def start(bin_dir: Path) -> tuple[subprocess.Popen[bytes], LiveFalkor]:
    """A FalkorDB server of one's own (the caller stops it with ``stop``)."""
    port = free_port()
    argv = [
        str(bin_dir / "redis-server"),
        *("--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"),
        *("--requirepass", PASSWORD),
        *("--loadmodule", str(bin_dir / "falkordb.so")),
        *("QUERY_MEM_CAPACITY", str(QUERY_MEM_CAPACITY)),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, password=PASSWORD, socket_timeout=1)
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError("FalkorDB (redis-server) did not start") from None
            time.sleep(0.05)
    client.close()
    return proc, LiveFalkor(port)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


_CLIENT = None


def fresh_store(*, writer: str | None = None):  # -> FalkorGraphStore
    """An empty tenant graph of its own, through one client of the session's server;
    its writes fenced for ``writer`` when given (``FalkorGraphStore.fence_writes``)."""
    global _CLIENT
    from recall_engine.storage.falkordb_graph import FalkorGraphStore
    from recall_engine.storage.falkordb_server import FalkorServer

    if _CLIENT is None:
        _CLIENT = FalkorServer(server().url(prefix="contract"))
    store = FalkorGraphStore(_CLIENT, uuid.uuid4().hex[:12])
    if writer is not None:
        store.fence_writes(writer)
    return store
