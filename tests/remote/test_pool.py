"""One connection pool per remote engine, whichever event loops and threads call it:
no connection is left open for the garbage collector, and ``close()``/``aclose()``
close them all."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import warnings
from collections.abc import Callable

import httpx
import pytest

from recall_engine import RecallEngine, RemoteRecallEngine, SearchType
from recall_engine.integrations._common import run_sync
from tests.remote_fixture import Served, serve


@pytest.fixture
def served(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    asyncio.run(engine.remember("Einstein was born in Ulm.", dataset_name="physics"))
    live = serve(engine)
    yield live
    live.stop()
    engine.close()


def open_connections(served: Served) -> int:
    """The connections the server holds open (a client's open sockets to it)."""
    return len(served.server.server_state.connections)


def eventually(check: Callable[[], bool]) -> bool:
    """Whether ``check()`` holds within 5 s (the server sees a close a moment later)."""
    deadline = time.monotonic() + 5
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


async def recall_ulm(remote) -> None:
    found = await remote.recall("Ulm", SearchType.CHUNKS_LEXICAL, only_context=True)
    assert found and "Ulm" in found[0].text


def test_many_event_loops_share_one_pool(served) -> None:
    """``asyncio.run`` after ``asyncio.run`` (the adapters' sync calls), a long-lived
    loop in between and a sync call inside a running loop: no pool is stranded."""
    remote = served.connect()
    long_lived = asyncio.new_event_loop()

    async def sync_call_inside_a_loop() -> None:
        run_sync(recall_ulm(remote))  # runs on a new loop in a worker thread

    gc.disable()  # a stranded pool would otherwise close (with a warning) at random
    try:
        for _ in range(20):
            asyncio.run(recall_ulm(remote))
            long_lived.run_until_complete(recall_ulm(remote))
        long_lived.run_until_complete(sync_call_inside_a_loop())
        held = open_connections(served)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            gc.collect()
    finally:
        gc.enable()
        long_lived.close()
    port = served.url.rsplit(":", 1)[1]
    unclosed = [str(w.message) for w in caught if f"'127.0.0.1', {port})" in str(w.message)]
    assert held <= 2, f"{held} connections open after 41 calls"
    assert unclosed == []
    remote.close()
    assert eventually(lambda: open_connections(served) == 0)


def test_threads_share_one_engine_and_close_closes_every_connection(served) -> None:
    remote = served.connect()
    failures: list[BaseException] = []

    def calls() -> None:
        try:
            for _ in range(5):
                asyncio.run(recall_ulm(remote))
        except BaseException as error:  # re-raised below
            failures.append(error)

    threads = [threading.Thread(target=calls) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert 1 <= open_connections(served) <= 4
    asyncio.run(remote.aclose())  # on a loop that made no call: still closes them all
    assert eventually(lambda: open_connections(served) == 0)
    asyncio.run(recall_ulm(remote))  # a closed engine opens a new pool if used again
    remote.close()
    assert eventually(lambda: open_connections(served) == 0)


def test_an_engine_dropped_unclosed_lets_its_pool_go(served) -> None:
    remote = served.connect()
    asyncio.run(recall_ulm(remote))
    del remote
    gc.collect()
    assert eventually(lambda: open_connections(served) == 0)
    assert eventually(lambda: not any(t.name == "recall-remote" for t in threading.enumerate()))


async def test_a_cancelled_call_is_cancelled_on_the_pool_loop_too() -> None:
    started, cancelled = threading.Event(), threading.Event()

    async def never_answers(request: httpx.Request) -> httpx.Response:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return httpx.Response(200, json={"result": {}})

    remote = RemoteRecallEngine("http://127.0.0.1:9", transport=httpx.MockTransport(never_answers))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(remote.list_datasets(), 0.2)
    assert started.is_set()
    assert await asyncio.to_thread(cancelled.wait, 5)
    await remote.aclose()
