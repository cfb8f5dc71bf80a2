"""The embedding model loaded beside the first recall's store open.

A process's first recall opens the store (imports, reads its records) and then loads
the embedding model for the query's vector, one after the other. ``warm_up_soon``
starts the model's load in a thread as the first recall begins, so the two overlap;
the recall's own embedding waits for the load in progress (the embedder's lock)
instead of starting it. Measured: ``docs/decisions.md``.

The thread is not a daemon: the interpreter joins it before it finalises. A load
still running at exit (a recall that never needed the vector, such as a lexical
search or a query whose vector this process had cached, then the process ending)
would otherwise be torn down in the middle of ONNX Runtime's C++ session setup,
which aborts the process (``terminate called without an active exception``, exit
code 134). Waiting costs such a process at most the rest of one load at exit (the
export too, on a machine's first run), never a recall.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import cast

from recall_engine.embedding.embedder import Embedder, wrapped_method

log = logging.getLogger(__name__)


def warm_up_soon(embedder: Embedder) -> threading.Thread | None:
    """Start ``embedder.warm_up()`` (found through wrappers) in a background thread.

    A failure is only logged: the recall's own embedding raises it where it is asked.
    The thread is joined at interpreter exit (not a daemon; see the module docstring).

    Args:
        embedder: the engine's embedder.

    Returns:
        The thread started, or None when the embedder has nothing to warm up.
    """
    warm = cast("Callable[[], None] | None", wrapped_method(embedder, "warm_up"))
    if warm is None:
        return None

    def run() -> None:
        try:
            warm()
        except Exception as exc:  # reported by the embedding that needs the model
            log.debug("Embedding warm-up failed: %s", exc)

    # Not a daemon: a native load cut off by interpreter finalisation aborts the process.
    thread = threading.Thread(target=run, name="recall-engine-warm-up", daemon=False)
    thread.start()
    return thread
