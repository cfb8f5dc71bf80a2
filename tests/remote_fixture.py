"""Engines for suites that run against both modes: the embedded engine, and the
same engine served by uvicorn on 127.0.0.1 (a thread of the test process, over
the same data dir) and reached through ``RecallEngine.connect``.

``serve(engine)`` starts one server and returns a ``Served``; ``remote_or_not``
is the parameter list for an engine fixture (``"embedded"``, ``"remote"``).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import uvicorn

from recall_engine import RecallEngine
from recall_engine.remote import RemoteRecallEngine
from recall_engine.server import ServerSettings, create_app

MODES = ("embedded", "remote")
API_KEY = "remote-fixture-admin-key-0000"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    engine: RecallEngine
    url: str
    server: uvicorn.Server
    thread: threading.Thread

    def connect(self, **options: Any) -> RemoteRecallEngine:
        return RecallEngine.connect(self.url, api_key=API_KEY, **options)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve(engine: RecallEngine, *, auth: bool = True) -> Served:
    """``engine`` behind a real HTTP server; with ``auth``, ``API_KEY`` is an admin key."""
    if auth:
        from recall_engine.tenants.registry import ADMIN

        engine.tenants.registry.add_key(API_KEY, ADMIN)
    port = _free_port()
    config = uvicorn.Config(
        create_app(engine, ServerSettings(auth=auth, rate=0)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="none",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    return Served(engine, f"http://127.0.0.1:{port}", server, thread)


async def engine_in_mode(mode: str, path: Any, embedder: Any) -> Any:
    """An async generator body for an engine fixture: embedded, or the same engine
    served on 127.0.0.1 and reached through ``RecallEngine.connect``."""
    embedded = RecallEngine(path, embedder=embedder)
    if mode == "embedded":
        yield embedded
        embedded.close()
        return
    served = serve(embedded)
    remote = served.connect()
    yield remote
    await remote.aclose()
    served.stop()
    embedded.close()
