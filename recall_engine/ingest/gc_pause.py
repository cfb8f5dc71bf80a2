"""Cyclic garbage collection paused while an ingest runs.

An ingest allocates hundreds of thousands of container objects (rows, records,
pydantic models) that live until it ends, long enough to reach CPython's oldest
generation; full collections then start in the middle of the ingest, each one
walking every tracked object with the GIL held, and the event loop of the
process stalls for as long (250-350 ms per collection on a 400-chunk ingest,
measured by ``bench.loop_stall``). Reference counting frees nearly all of those
objects when the ingest returns, so the collector is paused for its duration and
resumed after; the next ordinary collection takes the few cycles it left.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_paused_by_us = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Keep the cyclic collector off while any ingest of the process is inside.

    Nests and overlaps across threads: the collector comes back when the last
    one leaves, and only if it was on when the first one came in (an
    application that turned it off keeps it off).
    """
    global _depth, _paused_by_us
    with _lock:
        if _depth == 0:
            _paused_by_us = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _paused_by_us:
                gc.enable()
