"""The in-memory query path over a tenant's chunks: exact dense search and BM25.

A ``VectorIndex`` of chunk records (the one index every table uses) plus a BM25
``LexicalIndex`` whose rows align with it. LanceDB stays the source of truth;
this mirror is filled when a tenant opens and kept in step by every ingest and
deletion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from recall_engine.storage.lexical import LexicalIndex
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.time_filter import to_epoch
from recall_engine.storage.vector_index import RowKeys, VectorIndex, top_k


def chunk_keys(record: ChunkRecord) -> RowKeys:
    return RowKeys(record.id, record.dataset_id, record.data_id, "", to_epoch(record.timestamp))


class ChunkIndex:
    """Chunks by vector, by BM25 and by id, scoped by dataset."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.vectors: VectorIndex[ChunkRecord] = VectorIndex(dimension, chunk_keys)
        self.lexical = LexicalIndex()
        self._by_data: dict[str, list[ChunkRecord]] = {}

    def __len__(self) -> int:
        return len(self.vectors)

    def add(
        self,
        records: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
    ) -> None:
        """Append chunks; ``vectors`` rows and ``tokens`` align with ``records``."""
        if len(records) == 0:
            return
        with self.vectors.lock:
            self.vectors.add(records, vectors)
            self.lexical.add(tokens)
            for record in records:
                self._by_data.setdefault(record.data_id, []).append(record)

    def remove_data(self, data_ids: Iterable[str]) -> int:
        """Mask out every chunk of the given data items; return how many."""
        with self.vectors.lock:
            ids = list(data_ids)
            for data_id in ids:
                self._by_data.pop(data_id, None)
            return self.vectors.remove(data_ids=ids)

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
        """Top ``k`` chunks by cosine similarity (vectors are unit length); ``where``
        as in ``search_lexical``."""
        return self.vectors.search(query, k, dataset_ids, where=where)

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
        with self.vectors.lock:
            return sorted(self._by_data.get(data_id, []), key=lambda r: r.chunk_index)

    def records(self, dataset_ids: Sequence[str] | None = None) -> list[ChunkRecord]:
        """Every live chunk in scope, in insertion order."""
        return self.vectors.rows(dataset_ids)
