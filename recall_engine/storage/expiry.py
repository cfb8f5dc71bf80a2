"""Memories with a time to live: a chunk whose metadata holds ``expires_at`` (epoch
seconds, set by the tenant API's ``expiry_time``) is gone once that time passes.

``forget_expired`` deletes the expired data items of a store, so every search type
(chunks, graph, summaries, CYPHER over the raw graph) honours expiry without a
filter of its own; the tenant API's searches also mask expired rows in the search
itself, for the moments between an expiry and the next sweep.
"""

from __future__ import annotations

import logging
import math
import time
import weakref

import numpy as np

from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.storage.chunk_index import ChunkIndex
from recall_engine.storage.tenant import TenantStore

logger = logging.getLogger(__name__)
_expiry: weakref.WeakKeyDictionary[ChunkIndex, np.ndarray] = weakref.WeakKeyDictionary()


def expiry_of(index: ChunkIndex) -> np.ndarray:
    """Expiry epoch of every row (inf: never), extended as rows are appended."""
    known = _expiry.get(index, np.zeros(0))
    size = index.vectors.size
    if known.shape[0] < size:
        extra = np.full(size - known.shape[0], math.inf)
        for offset, at in enumerate(range(known.shape[0], size)):
            value = index.vectors.row(at).metadata.get(EXPIRES_KEY)
            if isinstance(value, int | float) and not isinstance(value, bool):
                extra[offset] = float(value)
        known = np.concatenate([known, extra])
        _expiry[index] = known
    return known[:size]


def expired_data_ids(store: TenantStore, now: float | None = None) -> list[str]:
    """The data items of ``store`` with a chunk expired by ``now`` (default: the clock)."""
    index = store.index
    with index.vectors.lock:
        alive = index.vectors.scope_mask(None)
        rows = np.flatnonzero(alive & (expiry_of(index) <= (time.time() if now is None else now)))
        return sorted({index.vectors.row(int(at)).data_id for at in rows})


def forget_expired(store: TenantStore, now: float | None = None) -> int:
    """Delete the expired data items of ``store``; return the chunks removed.

    Cheap when nothing expired (a vector comparison); takes the store's write lock
    only when something did. Blocking: call it off the event loop.
    """
    if not expired_data_ids(store, now):
        return 0
    with store.write_lock:
        expired = expired_data_ids(store, now)  # again, under the lock
        removed = store.forget(expired) if expired else 0
    if removed:
        logger.info("tenant %s: forgot %d expired chunks", store.tenant_id, removed)
    return removed
