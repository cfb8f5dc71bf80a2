"""Vectors an ingest can reuse instead of embedding again.

Storing an item again under its source id (a conversation re-stored with one more
turn, a document remembered again with a small edit) embeds the same chunk,
sentence, entity and relation texts as the item it replaces. ``ReuseMemo`` keeps,
per store, the vectors of the texts this process embedded for the items that have
a source id (only they can be replaced), keyed by dataset, embedding model id and
exact text; ``ReusingEmbedder`` serves those texts from it and embeds only the
others. The same model gives the same text the same vector, so a reuse stores
what embedding again would.

A memo never crosses datasets: an ingest reads only its own dataset's entries.
Entries of an item live while the item has live chunks in the store's mirror
(``ChunkIndex.has_data``); a deleted or replaced item's entries go at the next
lookup in its dataset. The memo is in memory and bounded (``MAX_TEXTS`` texts per
store, about 1.5 KB each at 384 dimensions): past it, the items written longest ago
are dropped first. After a restart, or once an item was dropped, its next write
embeds everything again.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from recall_engine.embedding import Embedder, WrappedEmbedder

if TYPE_CHECKING:
    from recall_engine.ingest.prepare import PreparedItem

Key = tuple[str, str]
"""(dataset id, embedding model id)."""

MAX_TEXTS = 20_000
"""The most texts one store's memo keeps (about 30 MB of vectors at 384 dimensions)."""


@dataclass
class _Scope:
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    owners: dict[str, tuple[str, ...]] = field(default_factory=dict)


class ReuseMemo:
    """Text -> vector per (dataset, model), each text held by the items that use it."""

    def __init__(self, max_texts: int = MAX_TEXTS) -> None:
        self._lock = threading.Lock()
        self._scopes: dict[Key, _Scope] = {}
        self._max_texts = max_texts
        self._written: dict[tuple[Key, str], None] = {}  # (key, owner), oldest write first

    def __len__(self) -> int:
        return sum(len(s.vectors) for s in self._scopes.values())

    def lookup(self, key: Key, alive: Callable[[str], bool]) -> dict[str, np.ndarray]:
        """The vectors kept for ``key``'s dataset and model, after dropping the
        entries of items that are no longer ``alive``.

        Args:
            key: (dataset id, embedding model id).
            alive: whether a data item is still stored.

        Returns:
            A copy of the text -> vector map (its arrays are shared, read-only use).
        """
        with self._lock:
            scope = self._scopes.get(key)
            if scope is None:
                return {}
            for owner in [o for o in scope.owners if not alive(o)]:
                self._release(scope, owner)
                self._written.pop((key, owner), None)
            if not scope.owners:
                del self._scopes[key]
            return dict(scope.vectors)

    def keep(
        self, key: Key, owned: Mapping[str, Iterable[str]], vectors: Mapping[str, np.ndarray]
    ) -> None:
        """Record ``vectors`` for the texts each item of ``owned`` uses.

        Args:
            key: (dataset id, embedding model id).
            owned: data id -> the texts of ``vectors`` it uses (others are ignored).
            vectors: text -> its vector under the key's model.
        """
        with self._lock:
            scope = self._scopes.setdefault(key, _Scope())
            for owner, texts in owned.items():
                self._release(scope, owner)
                mine = tuple(dict.fromkeys(t for t in texts if t in vectors))
                scope.owners[owner] = mine
                for text in mine:
                    scope.counts[text] = scope.counts.get(text, 0) + 1
                    scope.vectors.setdefault(text, vectors[text])
                self._written.pop((key, owner), None)
                self._written[(key, owner)] = None
            if not scope.owners:
                del self._scopes[key]
            self._evict()

    def _evict(self) -> None:
        """Drop the items written longest ago until the memo holds ``max_texts``."""
        total = len(self)
        while total > self._max_texts and self._written:
            key, owner = next(iter(self._written))
            del self._written[(key, owner)]
            scope = self._scopes.get(key)
            if scope is None:
                continue
            self._release(scope, owner)
            if not scope.owners:
                del self._scopes[key]
            total = len(self)

    @staticmethod
    def _release(scope: _Scope, owner: str) -> None:
        for text in scope.owners.pop(owner, ()):
            left = scope.counts[text] - 1
            if left:
                scope.counts[text] = left
            else:
                del scope.counts[text], scope.vectors[text]


_MEMOS: weakref.WeakKeyDictionary[object, ReuseMemo] = weakref.WeakKeyDictionary()
_MEMOS_LOCK = threading.Lock()


def memo_of(store: object) -> ReuseMemo:
    """The memo of one store (made on first use, gone with the store)."""
    with _MEMOS_LOCK:
        memo = _MEMOS.get(store)
        if memo is None:
            memo = _MEMOS[store] = ReuseMemo()
        return memo


class ReusingEmbedder(WrappedEmbedder):
    """An embedder that serves known texts from stored vectors and embeds the rest.

    Attributes:
        served: every text asked for so far -> the vector returned for it.
        embedded: how many texts went to the inner embedder.
    """

    def __init__(self, inner: Embedder, known: Mapping[str, np.ndarray]) -> None:
        super().__init__(inner)
        self._known = known
        self.served: dict[str, np.ndarray] = {}
        self.embedded = 0

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """One vector per text: the kept or already served one, else the inner
        embedder's (one call for all the missing texts, none when none is)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.served and t not in self._known]
        if missing:
            made = self.inner.embed(missing, batch_size=batch_size)
            self.embedded += len(missing)
            self.served.update(zip(missing, made, strict=True))
        for text in texts:
            if text not in self.served:
                self.served[text] = self._known[text]
        if not texts:
            return self.inner.embed(texts, batch_size=batch_size)
        return np.stack([self.served[t] for t in texts]).astype(np.float32, copy=False)


def owned_texts(
    fresh: Sequence[PreparedItem], served: dict[str, np.ndarray]
) -> dict[str, list[str]]:
    """Data id -> the texts an item of ``fresh`` with a source id (one that can be
    replaced) uses: its chunks' and sentences'; the first also holds the graph's."""
    owned: dict[str, list[str]] = {}
    chunk_texts: set[str] = set()
    for p in fresh:
        texts = [t for d in p.drafts for t in (d.embed_text, *d.embed_sentences)]
        chunk_texts.update(texts)
        if p.item.source_id:
            owned[p.data_id] = texts
    if owned:
        first = next(iter(owned.values()))
        first += [t for t in served if t not in chunk_texts]
    return owned
