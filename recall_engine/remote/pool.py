"""The remote client's connection pool, on a thread and event loop of its own.

A pooled connection belongs to the event loop that opened it, and a remote engine
is called from many loops: one ``asyncio.run`` after another (the framework
adapters' sync calls), an app's loop and a worker thread's at once. A pool per
loop would strand its open sockets whenever its loop ends. So the engine's one
pool lives on a daemon thread running a loop of its own; each request is handed
to that loop and awaited from the caller's. ``close()``/``aclose()`` close it
from any thread or loop, and so does the engine's garbage collection.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


class _PoolThread:
    """One ``httpx.AsyncClient`` on a daemon thread that runs its event loop."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.closed: concurrent.futures.Future[None] = concurrent.futures.Future()
        self.closed.set_running_or_notify_cancel()  # a cancelled wait must not cancel it
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="recall-remote", daemon=True)
        self._thread.start()

    def submit(self, call: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(call, self._loop)

    def stop(self) -> None:
        """Let the calls already handed over finish, then close the pool (returns at once)."""
        self._loop.call_soon_threadsafe(self._loop.stop)

    def wait_closed(self) -> None:
        if threading.current_thread() is not self._thread:  # not from a call on the pool
            self.closed.result()

    def _run(self) -> None:
        try:
            self._loop.run_forever()
            self._loop.run_until_complete(self._drain())
        finally:
            self._loop.close()
            self.closed.set_result(None)

    async def _drain(self) -> None:
        current = asyncio.current_task()
        calls = [task for task in asyncio.all_tasks() if task is not current]
        await asyncio.gather(*calls, return_exceptions=True)
        await self.client.aclose()


class ConnectionPool:
    """The connection pool of one remote engine, opened on its first request.

    Thread-safe: any thread or event loop may send through it at the same time.

    Args:
        new_client: makes the ``httpx.AsyncClient`` (base URL, headers, timeouts).
    """

    def __init__(self, new_client: Callable[[], httpx.AsyncClient]) -> None:
        self._new_client = new_client
        self._lock = threading.Lock()
        self._thread: _PoolThread | None = None
        self._release: weakref.finalize[Any, Any] | None = None

    async def send(self, request: Callable[[httpx.AsyncClient], Coroutine[Any, Any, T]]) -> T:
        """``request(client)``, run on the pool's loop and awaited from the caller's.

        Returns:
            What ``request`` returns; it raises what ``request`` raises.
        """
        with self._lock:  # handed over before any stop(): a call never meets a closed loop
            if self._thread is None:
                self._thread = _PoolThread(self._new_client())
                self._release = weakref.finalize(self, self._thread.stop)
            future = self._thread.submit(request(self._thread.client))
        return await _waited(future)

    def close(self) -> None:
        """Close the pool once the calls in flight have finished (a later call opens a
        new one)."""
        thread = self._detach()
        if thread is not None:
            thread.wait_closed()

    async def aclose(self) -> None:
        """``close()`` for async code: waits without blocking the caller's loop."""
        thread = self._detach()
        if thread is not None:
            await _waited(thread.closed)

    def _detach(self) -> _PoolThread | None:
        with self._lock:
            thread, self._thread = self._thread, None
            release, self._release = self._release, None
        if release is not None:
            release()  # stops the thread, once
        return thread


async def _waited(future: concurrent.futures.Future[T]) -> T:
    """The future's result, awaited on the running loop (asyncio or, through anyio,
    another async library such as trio); cancelling the wait cancels the future."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        import anyio

        try:
            return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            future.cancel()
            raise
    return await asyncio.wrap_future(future)
