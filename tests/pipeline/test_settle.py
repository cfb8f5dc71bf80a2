"""A store's read state is frozen out of the cyclic collector's walks after its first
recall (``pipeline.settle``), where the engine asks for it: the server and the MCP
server do, an embedded engine does not unless told."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from recall_engine import RecallEngine
from recall_engine.config import RecallConfig
from recall_engine.pipeline import settle as settle_module
from recall_engine.pipeline.settle import ENV, serving_default, settle, settled


class Store:
    """Any object a recall reads (kept weakly)."""


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    """The test process's objects go back to the collector after each test."""
    yield
    gc.unfreeze()
    if not gc.isenabled():
        gc.enable()


def test_a_store_settles_once_and_not_while_the_collector_is_off():
    gc.unfreeze()
    store = Store()
    gc.disable()  # as an ingest does while it runs
    try:
        assert settle(store) is False and not settled(store)
    finally:
        gc.enable()
    assert gc.get_freeze_count() == 0
    assert settle(store) is True and settled(store)
    assert gc.get_freeze_count() > 0  # what was alive is in the permanent generation
    gc.unfreeze()
    assert settle(store) is False and gc.get_freeze_count() == 0  # once per store
    assert settle(Store()) is True  # another store settles on its own first recall


async def _recall_and_turn(engine: RecallEngine) -> None:
    await engine.remember("Ann moved to Lyon in 2021.", dataset_name="notes")
    assert await engine.recall("Where does Ann live?", datasets=["notes"], only_context=True)
    await asyncio.sleep(0)  # the event loop's next turn


async def test_the_first_recall_settles_its_store_when_the_engine_asks(
    tmp_path, hash_embedder, monkeypatch
):
    calls: list[int] = []
    real = settle_module.settle

    def counted(store: object) -> bool:
        calls.append(1)
        return real(store)

    monkeypatch.setattr(settle_module, "settle", counted)
    plain = RecallEngine(tmp_path / "plain", embedder=hash_embedder)
    await _recall_and_turn(plain)
    assert calls == [] and not settled(plain.store())  # embedded default: untouched
    plain.close()
    serving = RecallEngine(tmp_path / "serving", embedder=hash_embedder, settle_heap=True)
    await _recall_and_turn(serving)
    assert calls == [1] and settled(serving.store()) and gc.get_freeze_count() > 0
    await serving.recall("Lyon", datasets=["notes"], only_context=True)
    await asyncio.sleep(0)
    assert calls == [1]  # settled stores are not asked again
    serving.close()


def test_serving_processes_settle_unless_the_environment_says(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert serving_default() is True
    monkeypatch.setenv(ENV, "false")
    assert serving_default() is None  # the environment's value then decides
    assert RecallConfig.load(settle_heap=serving_default()).settle_heap is False


def test_the_server_builds_its_engine_to_settle(tmp_path, monkeypatch):
    import uvicorn

    from recall_engine.server import __main__ as server_main
    from recall_engine.server import app as server_app

    built = []
    real_create = server_app.create_app

    def create_app(engine, settings):  # type: ignore[no-untyped-def]
        built.append(engine.config.settle_heap)
        return real_create(engine, settings)

    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(server_app, "create_app", create_app)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    assert server_main.main(["--data-dir", str(tmp_path / "data"), "--no-auth"]) == 0
    assert built == [True]


def test_the_mcp_server_builds_its_engine_to_settle(tmp_path, monkeypatch):
    from recall_engine.mcp import __main__ as mcp_main
    from recall_engine.mcp import transports

    built = []

    class Idle:
        async def run_stdio_async(self) -> None:
            return None

    def create_server(engine, settings):  # type: ignore[no-untyped-def]
        built.append(engine.config.settle_heap)
        return Idle()

    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(transports, "create_server", create_server)
    assert mcp_main.main(["--data-dir", str(tmp_path / "data")]) == 0
    assert built == [True]
