"""Engines for suites that run in every mode: the embedded engine; the same engine
served by uvicorn on 127.0.0.1 (a thread of the test process, over the same data
dir) and reached through ``RecallEngine.connect``; and the engine on the full
distributed profile (graph on FalkorDB, vectors on moto S3, state on Postgres,
Redis; ``tests.distributed_profile``), driven directly.

``serve(engine)`` starts one server and returns a ``Served``; ``MODES`` is the
parameter list for an engine fixture (``"embedded"``, ``"remote"``,
``"distributed"``). ``built`` (sync) and ``opened`` (async) make the engine of a
mode and give it to a test, so a suite's body does not know which one it drives;
``in_mode`` does the same for an engine the caller made (embedded or remote only).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from recall_engine import RecallEngine
from recall_engine.remote import RemoteRecallEngine
from recall_engine.server import ServerSettings, create_app
from tests.distributed_profile import distributed_profile
from tests.live_uvicorn import start_in_thread

MODES = ("embedded", "remote", "distributed")
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
    if mode == "distributed":
        raise ValueError("the distributed mode makes its own engine: use built() or opened()")
    if mode == "embedded":
        yield engine
        return
    served = serve(engine)
    try:
        yield served.connect()
    finally:
        served.stop()


def _made(stack: ExitStack, mode: str, path: Any, options: dict[str, Any]) -> RecallEngine:
    """``RecallEngine(path, **options)``, on a fresh distributed profile in that mode;
    ``stack`` closes it (and cleans the profile up)."""
    if mode == "distributed":
        options = stack.enter_context(distributed_profile()).options(**options)
    engine = RecallEngine(path, **options)
    stack.callback(engine.close)
    return engine


@contextmanager
def built(mode: str, path: Any, **engine_options: Any) -> Iterator[Any]:
    """``with built(mode, path, ...) as e`` for ``RecallEngine(path, ...)``: the engine
    on ``path`` in ``mode``, closed (with its server, its profile) on the way out."""
    with ExitStack() as stack:
        embedded = _made(stack, mode, path, engine_options)
        if mode == "distributed":
            yield embedded
        else:
            with in_mode(mode, embedded) as engine:
                yield engine


@asynccontextmanager
async def opened(mode: str, path: Any, **engine_options: Any) -> AsyncIterator[Any]:
    """``async with opened(mode, path, ...) as e`` for ``async with RecallEngine(path, ...)``:
    the engine on ``path`` in ``mode``, closed (with its server, its profile) on the way out."""
    with ExitStack() as stack:
        embedded = _made(stack, mode, path, engine_options)
        if mode == "distributed":
            yield embedded
            return
        with in_mode(mode, embedded) as engine:
            try:
                yield engine
            finally:
                if engine is not embedded:
                    await engine.aclose()


async def engine_in_mode(mode: str, path: Any, embedder: Any) -> Any:
    """An async generator body for an engine fixture: embedded, served on 127.0.0.1
    and reached through ``RecallEngine.connect``, or on the distributed profile."""
    async with opened(mode, path, embedder=embedder) as engine:
        yield engine
