"""The engine's writes in worker threads: a cancel or ``close()`` stops them, then waits.

``remember`` and ``forget`` block on stores and models, so they run in a worker
thread; a thread cannot be interrupted, and cancelling the task that awaits it
(an asyncio cancel, ``asyncio.wait_for``'s timeout, an MCP cancel, an HTTP
disconnect) would otherwise leave it running to commit after the caller was told
the call was cancelled. ``WriteThreads.run`` instead gives each write a stop flag
(``ingest.stop``), sets it on a cancel and raises ``CancelledError`` only once
the thread has stopped: at its next safe point (one embedding window at most), or
after its commit when that had already begun. ``close()`` stops every running
write the same way and waits for it before it closes the stores.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from recall_engine.core.errors import InvalidInputError
from recall_engine.ingest.stop import WriteStopped

logger = logging.getLogger(__name__)

T = TypeVar("T")


class WriteThreads:
    """The writes an engine runs in worker threads, each with its stop flag."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[threading.Event, threading.Event] = {}  # stop flag -> done
        self._closed = False

    async def run(self, what: str, work: Callable[[threading.Event], T]) -> T:
        """Run ``work(stop)`` in a worker thread and return its result.

        A cancel of the awaiting task sets ``stop`` and waits for the thread (through
        further cancels) before it raises ``CancelledError``; whatever the thread did
        by then (nothing, when it stopped before its commit) is not reported.

        Args:
            what: the call, for messages (``"remember()"``).
            work: the blocking write; it checks ``stop`` at its safe points.

        Returns:
            What ``work`` returned.

        Raises:
            asyncio.CancelledError: the task was cancelled (the thread has stopped).
            InvalidInputError: the engine was closed before or while the write ran
                (nothing of it was stored).
        """
        stop = threading.Event()
        future = asyncio.ensure_future(asyncio.to_thread(self._body, work, stop))
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            await _wait_out(future, what)
            raise
        except WriteStopped:  # close() stopped it
            raise InvalidInputError(
                f"This RecallEngine was closed while {what} ran; nothing of it was stored. "
                f"Open a new engine and call {what} again."
            ) from None

    def _body(self, work: Callable[[threading.Event], T], stop: threading.Event) -> T:
        done = threading.Event()
        with self._lock:
            if self._closed:
                raise InvalidInputError("This RecallEngine is closed; create a new one.")
            self._running[stop] = done
        try:
            return work(stop)
        finally:
            with self._lock:
                del self._running[stop]
            done.set()

    def close(self) -> None:
        """Refuse new writes, stop the running ones and wait until their threads end
        (each at its next safe point, or after its commit when that has begun)."""
        with self._lock:
            self._closed = True
            running = list(self._running.items())
        for stop, _ in running:
            stop.set()
        for _, done in running:
            done.wait()


async def _wait_out(future: asyncio.Future[T], what: str) -> None:
    """Wait until ``future`` is done, through cancels of the waiting task; its
    outcome is dropped (an error other than the stop is logged)."""
    while not future.done():
        try:
            await asyncio.wait([future])
        except asyncio.CancelledError:
            continue
    if future.cancelled():
        return
    error = future.exception()
    if error is not None and not isinstance(error, WriteStopped):
        logger.warning("%s failed after it was cancelled: %s", what, error)
