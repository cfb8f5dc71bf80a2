"""The in-memory query path over a tenant's chunks: exact dense search and BM25.

A ``VectorIndex`` of chunk records (the one index every table uses) plus a BM25
``LexicalIndex`` whose rows align with it. LanceDB stays the source of truth;
this mirror is filled when a tenant opens and kept in step by every ingest and
deletion, and, when other processes share the tables, by ``TenantStore.sync``.
A chunk id is derived from its data item and position, so the same id always
holds the same text: ``add`` skips ids already live, which makes replaying a
change (this process's own write, seen again in the shared table) harmless.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from recall_engine.storage.lexical import LexicalIndex
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.sentence_index import SentenceVectors
from recall_engine.storage.time_filter import to_epoch
from recall_engine.storage.vector_index import RowKeys, VectorIndex, top_k


class Siblings(NamedTuple):
    """One data item's live chunks in chunk order (``ChunkIndex.siblings``)."""

    chunks: tuple[ChunkRecord, ...]
    place: Mapping[str, int]
    """Chunk id -> its index in ``chunks``."""


def _chunk_index(record: ChunkRecord) -> int:
    return record.chunk_index


def chunk_keys(record: ChunkRecord) -> RowKeys:
    return RowKeys(record.id, record.dataset_id, record.data_id, "", to_epoch(record.timestamp))


class ChunkIndex:
    """Chunks by vector, by BM25 and by id, scoped by dataset."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.vectors: VectorIndex[ChunkRecord] = VectorIndex(dimension, chunk_keys)
        self.lexical = LexicalIndex()
        self.sentences = SentenceVectors(dimension)
        self._by_data: dict[str, list[ChunkRecord]] = {}
        self._ordered: dict[str, Siblings] = {}
        """Data id -> its chunks in chunk order and each one's place, built when first
        asked and dropped when the item's chunks change (``siblings``)."""
        self.dataset_names: dict[str, str] = {}
        """Dataset id -> name of every dataset a chunk was added to."""

    def __len__(self) -> int:
        return len(self.vectors)

    def add(
        self,
        records: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
        sentences: Sequence[np.ndarray] | None = None,
    ) -> None:
        """Append chunks; ``vectors`` rows, ``tokens`` and ``sentences`` (each
        chunk's sentence vectors, ``storage.sentence_index``; None: none) align
        with ``records``.

        A chunk whose id is live already (or repeats in ``records``) is skipped.
        """
        if len(records) == 0:
            return
        with self.vectors.lock:
            seen: set[str] = set()
            keep = []
            for at, record in enumerate(records):
                if record.id not in seen and not self.vectors.alive(record.id):
                    keep.append(at)
                seen.add(record.id)
            if len(keep) < len(records):
                records = [records[at] for at in keep]
                vectors, tokens = vectors[keep], [tokens[at] for at in keep]
                sentences = None if sentences is None else [sentences[at] for at in keep]
            if not records:
                return
            first_row = self.vectors.size
            self.vectors.add(records, vectors)
            self.lexical.add(tokens)
            if sentences is not None:
                self.sentences.add(first_row, sentences)
            for record in records:
                self._by_data.setdefault(record.data_id, []).append(record)
                self._ordered.pop(record.data_id, None)
                self.dataset_names.setdefault(record.dataset_id, record.dataset_name)

    def remove_data(self, data_ids: Iterable[str]) -> int:
        """Mask out every chunk of the given data items; return how many."""
        with self.vectors.lock:
            ids = list(data_ids)
            for data_id in ids:
                self._by_data.pop(data_id, None)
                self._ordered.pop(data_id, None)
            return self.vectors.remove(data_ids=ids)

    def remove_chunks(self, chunk_ids: Iterable[str]) -> int:
        """Mask out chunks by id; return how many."""
        with self.vectors.lock:
            ids = set(chunk_ids)
            for data_id in {r.data_id for r in self.vectors.get(ids)}:
                self._ordered.pop(data_id, None)
                kept = [r for r in self._by_data.get(data_id, []) if r.id not in ids]
                if kept:
                    self._by_data[data_id] = kept
                else:
                    self._by_data.pop(data_id, None)
            return self.vectors.remove(ids=ids)

    def live_datasets(self) -> dict[str, str]:
        """Dataset id -> name of the datasets that hold a live chunk."""
        return {d: self.dataset_names[d] for d in self.vectors.live_dataset_ids()}

    def alive(self, chunk_id: str) -> bool:
        return self.vectors.alive(chunk_id)

    def has_data(self, data_id: str) -> bool:
        return self.vectors.has_data(data_id)

    def search_dense(
        self,
        query: np.ndarray,
        k: int,
        dataset_ids: Sequence[str] | None = None,
        *,
        where: np.ndarray | None = None,
    ) -> list[tuple[ChunkRecord, float]]:
        """Top ``k`` chunks by dense score: cosine similarity (vectors are unit
        length) blended with the best sentence's (``storage.sentence_index``);
        ``where`` as in ``search_lexical``."""
        return self.vectors.search(query, k, dataset_ids, where=where, rescore=self.sentences.blend)

    def search_lexical(
        self,
        query_tokens: Sequence[str],
        k: int,
        dataset_ids: Sequence[str] | None = None,
        *,
        where: np.ndarray | None = None,
    ) -> list[tuple[ChunkRecord, float]]:
        """Top ``k`` chunks by BM25; chunks sharing no query term are left out.
        ``where``: an optional boolean mask over rows narrowing the candidates."""
        with self.vectors.lock:
            mask = self.vectors.scope_mask(dataset_ids)
            if where is not None:
                mask &= where[: mask.shape[0]]
            scores = self.lexical.scores(query_tokens, mask)
            rows = np.flatnonzero(mask & (scores > 0))
            return [(self.vectors.row(at), s) for at, s in top_k(scores[rows], rows, k)]

    def by_id(
        self, chunk_ids: Iterable[str], dataset_ids: Sequence[str] | None = None
    ) -> list[ChunkRecord]:
        """Live chunks with these ids (within the scope), in the order asked."""
        return self.vectors.get(chunk_ids, dataset_ids)

    def of_data(self, data_id: str) -> list[ChunkRecord]:
        """The live chunks of one data item, in chunk order."""
        return list(self.siblings(data_id).chunks)

    def siblings(self, data_id: str) -> Siblings:
        """The live chunks of one data item in chunk order, and each one's place in
        that order. Kept until the item's chunks change, so a query asking for the
        neighbours of a conversation's turns does not sort the conversation again.

        Args:
            data_id: the data item.

        Returns:
            Its ``Siblings`` (empty for an unknown item); not to be changed.
        """
        with self.vectors.lock:
            known = self._ordered.get(data_id)
            if known is None:
                chunks = tuple(sorted(self._by_data.get(data_id, []), key=_chunk_index))
                known = Siblings(chunks, {r.id: at for at, r in enumerate(chunks)})
                if data_id in self._by_data:
                    self._ordered[data_id] = known
            return known

    def records(self, dataset_ids: Sequence[str] | None = None) -> list[ChunkRecord]:
        """Every live chunk in scope, in insertion order."""
        return self.vectors.rows(dataset_ids)
