"""A store's read state moved out of the cyclic collector's way, once per store.

The first recall on a store loads what its reads keep for the store's lifetime (the
records, entity tables and read caches, and the modules the stores import): tens of
thousands of container objects. CPython's full collections walk every tracked object
with the GIL held, so a process serving recalls stalls for a full collection's time
now and then, and every request in flight on its event loop stalls with it (measured:
``docs/decisions.md``).

With ``RecallConfig.settle_heap`` (on for the server and the MCP server, off for an
embedded engine, whose application owns its process), the first recall on each store
is followed by one collection and ``gc.freeze()``: what is alive then goes to the
collector's permanent generation, and later full collections walk only what was
allocated since. Frozen objects are still freed by reference counting when their
store lets them go; only a reference cycle among them would be kept, once. It runs
after the recall has returned (the event loop's next turn), and not while the
collector is off (an ingest pauses it, ``ingest.gc_pause``; an application may have
turned it off): that store settles after a later recall.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import weakref

ENV = "RECALL_ENGINE_SETTLE_HEAP"

_lock = threading.Lock()
_settled: weakref.WeakSet[object] = weakref.WeakSet()


def serving_default() -> bool | None:
    """``settle_heap`` for a serving process (the server, the MCP server): True, or
    None (the environment's value) when ``$RECALL_ENGINE_SETTLE_HEAP`` is set."""
    return None if os.environ.get(ENV, "").strip() else True


def settle_soon(store: object) -> None:
    """After the running event loop's current turn, ``settle(store)`` if it has not
    settled yet (``settled``); nothing otherwise."""
    if not settled(store):
        asyncio.get_running_loop().call_soon(settle, store)


def settled(store: object) -> bool:
    """Whether ``store``'s first recall has been followed by ``settle``."""
    with _lock:
        return store in _settled


def settle(store: object) -> bool:
    """Collect once and freeze every object alive, the first time for ``store``.

    Args:
        store: the store whose read state was just loaded (kept weakly).

    Returns:
        True when it collected and froze; False when ``store`` had settled already or
        the collector is off (it is tried again after the store's next recall).
    """
    with _lock:
        if store in _settled or not gc.isenabled():
            return False
        _settled.add(store)
    gc.collect()
    gc.freeze()
    return True
