"""The embedding model loaded beside the first recall's store open.

A process's first recall opens the store (imports, reads its records) and then loads
the embedding model for the query's vector, one after the other. ``warm_up_soon``
starts the model's load in a daemon thread as the first recall begins, so the two
overlap; the recall's own embedding waits for the load in progress (the embedder's
lock) instead of starting it. Measured: ``docs/decisions.md``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import cast

from recall_engine.embedding.embedder import Embedder, wrapped_method

log = logging.getLogger(__name__)


def warm_up_soon(embedder: Embedder) -> threading.Thread | None:
    """Start ``embedder.warm_up()`` (found through wrappers) in a daemon thread.

    A failure is only logged: the recall's own embedding raises it where it is asked.

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

    thread = threading.Thread(target=run, name="recall-engine-warm-up", daemon=True)
    thread.start()
    return thread
