"""Run async set-up on a thread and event loop of its own: a fixture may be set up
while the test's own loop is running, where ``asyncio.run`` would refuse."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any


def run_on_own_loop(make: Callable[[], Coroutine[Any, Any, Any]]) -> None:
    """Runs the coroutine ``make()`` on a new thread and loop; re-raises what it raised."""
    failure: list[BaseException] = []

    def main() -> None:
        try:
            asyncio.run(make())
        except BaseException as error:  # re-raised below
            failure.append(error)

    thread = threading.Thread(target=main)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def filled(fill: Callable[[Any], Awaitable[Any]], path: Path | str, **options: Any) -> None:
    """Runs ``fill`` on ``RecallEngine(path, **options)`` (closed afterwards) on a loop of
    its own."""
    from recall_engine import RecallEngine

    async def run() -> None:
        engine = RecallEngine(path, **options)
        try:
            await fill(engine)
        finally:
            engine.close()

    run_on_own_loop(run)
