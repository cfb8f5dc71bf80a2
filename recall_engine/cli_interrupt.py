"""Ctrl-C in a command that holds a data dir: stop at once, keep what was committed.

The engine's work runs in worker threads (an ingest, a forget, the MCP stdio
server's reads of stdin), and a thread cannot be interrupted. asyncio's own answer
to SIGINT cancels the task that awaits the thread and lets the thread run on: the
command would close the stores under it, give up the data dir while it still
writes (another process could then open it), and exit only when the thread is done
(minutes for a large ``remember``, never for a stdin read). So the first SIGINT
ends the process at once, still holding the data dir until the kernel drops its
lock. The store is built to be stopped at any point: an ingest becomes visible at
one commit, and what a stopped process left half-written is set aside or removed
when the data dir is next opened (``storage.tenant``, ``storage.kuzu_wal``), so the
store holds exactly what was committed before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

INTERRUPTED = 130
"""The exit status after Ctrl-C (128 + SIGINT), as shells report it."""


def exit_on_interrupt(message: str) -> bool:
    """From now on, SIGINT prints ``message`` on stderr and ends the process with
    status 130 at once. Call it from the running event loop of the main thread.

    Args:
        message: one line saying what stopped and what that left.

    Returns:
        Whether the handler is in place (False off the main thread, or where the
        loop cannot handle signals, as on Windows: Python's default applies there).
    """
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, _stop, message)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True


def _stop(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # a closed pipe must not keep it alive
        sys.stdout.flush()
        print(message, file=sys.stderr, flush=True)
    os._exit(INTERRUPTED)  # no unwinding: worker threads must not outlive the data dir's lock
