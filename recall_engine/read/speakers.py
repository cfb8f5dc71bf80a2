"""Who says the stored turns of each dataset: the speakers' names, per store version.

A conversation turn is stored and embedded as "Speaker said: text"; the graph search
reads which of a question's names are such speakers (``retrievers.content_query``).
Worked out once per store version from the chunk rows; a write that only adds rows
reads on from where the last pass stopped, one that removes rows reads them all again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.tenant import TenantStore


@dataclass(frozen=True)
class _Speakers:
    size: int
    removed: int
    by_dataset: dict[str, frozenset[str]]


_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[TenantStore, _Speakers] = weakref.WeakKeyDictionary()


def _grouped(
    rows: Iterable[ChunkRecord], into: dict[str, frozenset[str]]
) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for row in rows:
        if row.speaker:
            found.setdefault(row.dataset_id, set()).add(row.speaker)
    out = dict(into)
    for dataset_id, names in found.items():
        out[dataset_id] = out.get(dataset_id, frozenset()) | names
    return out


def speakers(store: TenantStore, scope: Sequence[str]) -> frozenset[str]:
    """The names (as stored) of everyone who says a chunk of the datasets in ``scope``.

    Args:
        store: the tenant's store.
        scope: dataset ids.

    Returns:
        The speakers' names; empty for datasets without conversations.
    """
    vectors = store.index.vectors
    with vectors.lock:
        size, removed = vectors.size, vectors.removed
    with _LOCK:
        known = _CACHE.get(store)
    if known is None or known.removed != removed or known.size > size:
        known = _Speakers(size, removed, _grouped(vectors.rows(None), {}))
    elif known.size < size:  # rows only added since: read those
        known = _Speakers(size, removed, _grouped(vectors.rows_since(known.size), known.by_dataset))
    with _LOCK:
        _CACHE[store] = known
    return frozenset().union(*(known.by_dataset.get(d, frozenset()) for d in scope))
