"""A real uvicorn server on 127.0.0.1 (a free port), in a thread of the test
process so a test can reach into its engine; stopped in teardown."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from recall_engine import RecallEngine
from recall_engine.server import ServerSettings, create_app
from recall_engine.tenants.registry import ADMIN
from tests.live_uvicorn import start_in_thread

ADMIN_KEY = "admin-key-000000000000"
KEYS = {"acme": "acme-key-0000000000000", "globex": "globex-key-000000000000"}


@dataclass
class LiveServer:
    engine: RecallEngine
    base_url: str
    server: uvicorn.Server
    thread: threading.Thread

    def client(self, key: str | None = ADMIN_KEY, **options: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=60, **options)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.engine.close()


def start_server(engine: RecallEngine, settings: ServerSettings) -> LiveServer:
    registry = engine.tenants.registry
    registry.add_key(ADMIN_KEY, ADMIN)
    for tenant, key in KEYS.items():
        registry.add_key(key, tenant)
    port, server, thread = start_in_thread(create_app(engine, settings))
    return LiveServer(engine, f"http://127.0.0.1:{port}", server, thread)


@pytest.fixture
def make_server(tmp_path: Path, hash_embedder) -> Iterator[Callable[..., LiveServer]]:
    """Start servers (deterministic embedder unless one is given); all stop at teardown."""
    started: list[LiveServer] = []

    def make(embedder: Any = None, **settings: Any) -> LiveServer:
        data = tmp_path / f"data{len(started)}"
        engine = RecallEngine(data, embedder=embedder or hash_embedder)
        live = start_server(engine, ServerSettings(**settings))
        started.append(live)
        return live

    yield make
    for live in started:
        live.stop()


@pytest.fixture
def live(make_server) -> LiveServer:
    return make_server()


@pytest.fixture(params=["embedded", "distributed"])
def live_in_both_profiles(request, make_server, tmp_path, hash_embedder) -> Iterator[LiveServer]:
    """The server on an embedded engine, or on the distributed profile (its rate
    limits in Redis too): what the official SDKs' suites run against."""
    if request.param == "embedded":
        yield make_server()
        return
    from tests.distributed_profile import distributed_profile

    with distributed_profile() as profile:
        engine = RecallEngine(tmp_path / "dist", embedder=hash_embedder, **profile.options())
        server = start_server(engine, ServerSettings(redis_url=profile.redis_url))
        try:
            yield server
        finally:
            server.stop()


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The envelope's detail, checked for shape."""
    body = response.json()
    assert set(body) == {"detail"}, body
    detail = body["detail"]
    assert detail["success"] is False
    assert isinstance(detail["message"], str) and detail["message"]
    return dict(detail)
