"""The in-memory query path over a tenant's chunks: exact dense search and BM25.

LanceDB is the durable store; this index mirrors it in RAM so that a query
costs one matrix-vector product (about 1 ms at 10k x 384) instead of a LanceDB
round trip (10-20 ms). It is filled from LanceDB when a tenant opens and kept
in step by every ingest and deletion. Dense search is exact, not approximate.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import numpy as np

from recall_engine.storage.lexical import LexicalIndex
from recall_engine.storage.records import ChunkRecord


class ChunkIndex:
    """Rows of chunks with their vectors, a dataset code per row and an alive mask."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._lock = threading.RLock()
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._codes = np.zeros(0, dtype=np.int32)
        self._alive = np.zeros(0, dtype=bool)
        self._n = 0
        self._records: list[ChunkRecord] = []
        self._rows_by_data: dict[str, list[int]] = {}
        self._dataset_codes: dict[str, int] = {}
        self.lexical = LexicalIndex()

    def __len__(self) -> int:
        return int(self._alive[: self._n].sum())

    def _code(self, dataset_id: str) -> int:
        if dataset_id not in self._dataset_codes:
            self._dataset_codes[dataset_id] = len(self._dataset_codes)
        return self._dataset_codes[dataset_id]

    def _reserve(self, extra: int) -> None:
        capacity = self._vectors.shape[0]
        needed = self._n + extra
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity * 2, 1024)
        vectors = np.zeros((new_capacity, self.dimension), dtype=np.float32)
        vectors[: self._n] = self._vectors[: self._n]
        codes = np.zeros(new_capacity, dtype=np.int32)
        codes[: self._n] = self._codes[: self._n]
        alive = np.zeros(new_capacity, dtype=bool)
        alive[: self._n] = self._alive[: self._n]
        self._vectors, self._codes, self._alive = vectors, codes, alive

    def add(
        self,
        records: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
    ) -> None:
        """Append chunks; ``vectors`` rows and ``tokens`` align with ``records``."""
        if len(records) == 0:
            return
        if vectors.shape != (len(records), self.dimension):
            raise ValueError(
                f"expected vectors of shape ({len(records)}, {self.dimension}), got {vectors.shape}"
            )
        with self._lock:
            self._reserve(len(records))
            start, end = self._n, self._n + len(records)
            self._vectors[start:end] = vectors
            self._codes[start:end] = [self._code(r.dataset_id) for r in records]
            self._alive[start:end] = True
            for offset, record in enumerate(records):
                self._rows_by_data.setdefault(record.data_id, []).append(start + offset)
            self._records.extend(records)
            self.lexical.add(tokens)
            self._n = end

    def remove_data(self, data_ids: Iterable[str]) -> int:
        """Mask out every chunk of the given data items; return how many."""
        removed = 0
        with self._lock:
            for data_id in data_ids:
                for row in self._rows_by_data.pop(data_id, []):
                    if self._alive[row]:
                        self._alive[row] = False
                        removed += 1
        return removed

    def has_data(self, data_id: str) -> bool:
        return data_id in self._rows_by_data

    def _scope_mask(self, dataset_ids: Sequence[str] | None) -> np.ndarray:
        mask = self._alive[: self._n].copy()
        if dataset_ids is not None:
            codes = [self._dataset_codes[d] for d in dataset_ids if d in self._dataset_codes]
            mask &= np.isin(self._codes[: self._n], np.asarray(codes, dtype=np.int32))
        return mask

    @staticmethod
    def _top(scores: np.ndarray, mask: np.ndarray, k: int) -> list[tuple[int, float]]:
        candidates = np.flatnonzero(mask)
        if candidates.size == 0 or k <= 0:
            return []
        picked = scores[candidates]
        if candidates.size > k:
            part = np.argpartition(-picked, k - 1)[:k]
            candidates, picked = candidates[part], picked[part]
        order = np.lexsort((candidates, -picked))
        return [(int(candidates[i]), float(picked[i])) for i in order]

    def search_dense(
        self, query: np.ndarray, k: int, dataset_ids: Sequence[str] | None = None
    ) -> list[tuple[ChunkRecord, float]]:
        """Top ``k`` chunks by cosine similarity (vectors are unit length)."""
        with self._lock:
            mask = self._scope_mask(dataset_ids)
            scores = self._vectors[: self._n] @ query.astype(np.float32).ravel()
            top = self._top(scores, mask, k)
            return [(self._records[row], score) for row, score in top]

    def search_lexical(
        self, query_tokens: Sequence[str], k: int, dataset_ids: Sequence[str] | None = None
    ) -> list[tuple[ChunkRecord, float]]:
        """Top ``k`` chunks by BM25; chunks sharing no query term are left out."""
        with self._lock:
            mask = self._scope_mask(dataset_ids)
            scores = self.lexical.scores(query_tokens, mask)
            top = self._top(scores, mask & (scores > 0), k)
            return [(self._records[row], score) for row, score in top]

    def records(self, dataset_ids: Sequence[str] | None = None) -> list[ChunkRecord]:
        """Every live chunk in scope, in insertion order."""
        with self._lock:
            mask = self._scope_mask(dataset_ids)
            return [self._records[row] for row in np.flatnonzero(mask)]
