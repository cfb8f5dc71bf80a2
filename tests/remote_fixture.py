"""Engines for suites that run against both modes: the embedded engine, and the
same engine served by uvicorn on 127.0.0.1 (a thread of the test process, over
the same data dir) and reached through ``RecallEngine.connect``.

``serve(engine)`` starts one server and returns a ``Served``; ``MODES`` is the
parameter list for an engine fixture (``"embedded"``, ``"remote"``). ``in_mode``
(sync) and ``opened`` (async) give a test the engine in either mode, so a suite's
body does not know which one it drives.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from recall_engine import RecallEngine
from recall_engine.remote import RemoteRecallEngine
from recall_engine.server import ServerSettings, create_app
from tests.live_uvicorn import start_in_thread

MODES = ("embedded", "remote")
API_KEY = "remote-fixture-admin-key-0000"


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
    port, server, thread = start_in_thread(create_app(engine, ServerSettings(auth=auth, rate=0)))
    return Served(engine, f"http://127.0.0.1:{port}", server, thread)


@contextmanager
def in_mode(mode: str, engine: RecallEngine) -> Iterator[Any]:
    """``engine`` itself, or ``engine`` served on 127.0.0.1 and reached through
    ``RecallEngine.connect``; the caller still owns (and closes) ``engine``."""
    if mode == "embedded":
        yield engine
        return
    served = serve(engine)
    try:
        yield served.connect()
    finally:
        served.stop()


@asynccontextmanager
async def opened(mode: str, path: Any, **engine_options: Any) -> AsyncIterator[Any]:
    """``async with opened(mode, path, ...) as e`` for ``async with RecallEngine(path, ...)``:
    the engine on ``path`` in ``mode``, closed (with its server) on the way out."""
    embedded = RecallEngine(path, **engine_options)
    try:
        with in_mode(mode, embedded) as engine:
            try:
                yield engine
            finally:
                if engine is not embedded:
                    await engine.aclose()
    finally:
        embedded.close()


async def engine_in_mode(mode: str, path: Any, embedder: Any) -> Any:
    """An async generator body for an engine fixture: embedded, or the same engine
    served on 127.0.0.1 and reached through ``RecallEngine.connect``."""
    async with opened(mode, path, embedder=embedder) as engine:
        yield engine
