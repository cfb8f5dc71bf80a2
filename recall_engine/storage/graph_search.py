"""Search graph elements by meaning: an in-memory mirror of a LanceDB graph table.

Like ``ChunkIndex`` for chunks, a ``VectorMirror`` holds a table's vectors in
RAM so a query is one matrix-vector product, scoped by dataset with a mask.
It is filled from LanceDB when a tenant opens and kept in step by every
ingest and deletion. ``GraphHit`` is what the search methods return;
``VectorMirror.nearest`` also serves entity resolution at ingest (the stored
entities of one dataset and type nearest to each new entity).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field


class GraphHit(BaseModel):
    """One scored entity or relation, with the chunks it rests on."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["entity", "relation"]
    id: str
    score: float = Field(description="Cosine similarity to the query.")
    dataset_id: str
    text: str = Field(description="The text that was embedded.")
    name: str | None = Field(default=None, description="Entities: the display name.")
    type: str | None = Field(default=None, description="Entities: PERSON, PLACE, ...")
    predicate: str | None = Field(default=None, description="Relations: canonical predicate.")
    source_id: str | None = None
    target_id: str | None = None
    chunk_ids: list[str] = Field(
        default_factory=list, description="Provenance: the supporting chunks, in document order."
    )
    data_ids: list[str] = Field(default_factory=list)


class VectorMirror:
    """Rows of one graph table: vectors, a dataset code per row and an alive mask."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._lock = threading.RLock()
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._codes = np.zeros(0, dtype=np.int32)
        self._kinds = np.zeros(0, dtype=np.int32)
        self._alive = np.zeros(0, dtype=bool)
        self._n = 0
        self._rows: list[dict[str, Any]] = []
        self._by_id: dict[str, list[int]] = {}
        self._by_data: dict[str, list[int]] = {}
        self._dataset_codes: dict[str, int] = {}
        self._kind_codes: dict[str, int] = {}

    def __len__(self) -> int:
        return int(self._alive[: self._n].sum())

    def _reserve(self, extra: int) -> None:
        if self._n + extra <= self._vectors.shape[0]:
            return
        capacity = max(self._n + extra, 2 * self._vectors.shape[0], 256)
        vectors = np.zeros((capacity, self.dimension), dtype=np.float32)
        vectors[: self._n] = self._vectors[: self._n]
        codes = np.zeros(capacity, dtype=np.int32)
        codes[: self._n] = self._codes[: self._n]
        kinds = np.zeros(capacity, dtype=np.int32)
        kinds[: self._n] = self._kinds[: self._n]
        alive = np.zeros(capacity, dtype=bool)
        alive[: self._n] = self._alive[: self._n]
        self._vectors, self._codes, self._kinds, self._alive = vectors, codes, kinds, alive

    def add(self, rows: Sequence[dict[str, Any]], vectors: np.ndarray) -> None:
        """Append rows (each with ``id`` and ``dataset_id``, maybe ``data_id`` and
        ``type``)."""
        if not rows:
            return
        with self._lock:
            self._reserve(len(rows))
            start = self._n
            self._vectors[start : start + len(rows)] = vectors
            for offset, row in enumerate(rows):
                at = start + offset
                code = self._dataset_codes.setdefault(row["dataset_id"], len(self._dataset_codes))
                self._codes[at] = code
                kind = row.get("type") or ""
                self._kinds[at] = self._kind_codes.setdefault(kind, len(self._kind_codes))
                self._alive[at] = True
                self._by_id.setdefault(row["id"], []).append(at)
                if row.get("data_id"):
                    self._by_data.setdefault(row["data_id"], []).append(at)
            self._rows.extend(rows)
            self._n += len(rows)

    def remove(self, *, ids: Iterable[str] = (), data_ids: Iterable[str] = ()) -> int:
        """Mask out rows by id or by data item; return how many went."""
        removed = 0
        with self._lock:
            rows = [r for i in ids for r in self._by_id.pop(i, [])]
            rows += [r for d in data_ids for r in self._by_data.pop(d, [])]
            for row in rows:
                if self._alive[row]:
                    self._alive[row] = False
                    removed += 1
        return removed

    def search(
        self, query: np.ndarray, k: int, dataset_ids: Sequence[str] | None = None
    ) -> list[tuple[dict[str, Any], float]]:
        """Top ``k`` live rows by cosine similarity (rows are unit length), ties by row."""
        with self._lock:
            mask = self._alive[: self._n].copy()
            if dataset_ids is not None:
                codes = [self._dataset_codes[d] for d in dataset_ids if d in self._dataset_codes]
                mask &= np.isin(self._codes[: self._n], np.asarray(codes, dtype=np.int32))
            candidates = np.flatnonzero(mask)
            if candidates.size == 0 or k <= 0:
                return []
            scores = self._vectors[candidates] @ np.asarray(query, dtype=np.float32).ravel()
            if candidates.size > k:
                part = np.argpartition(-scores, k - 1)[:k]
                candidates, scores = candidates[part], scores[part]
            order = np.lexsort((candidates, -scores))
            return [(self._rows[int(candidates[i])], float(scores[i])) for i in order]

    def nearest(
        self,
        queries: np.ndarray,
        kinds: Sequence[str],
        *,
        dataset_id: str,
        k: int,
        min_score: float,
    ) -> list[tuple[dict[str, Any], np.ndarray]]:
        """The live rows of ``dataset_id`` among the ``k`` nearest to some query
        row with the same ``type`` (``kinds[i]`` for ``queries[i]``) and a cosine
        similarity of at least ``min_score``; each row once, with its vector."""
        queries = np.asarray(queries, dtype=np.float32).reshape(-1, self.dimension)
        with self._lock:
            code = self._dataset_codes.get(dataset_id)
            if code is None or queries.shape[0] == 0 or k <= 0:
                return []
            rows = np.flatnonzero(self._alive[: self._n] & (self._codes[: self._n] == code))
            found: dict[int, None] = {}
            for kind in sorted(set(kinds)):
                kind_code = self._kind_codes.get(kind)
                if kind_code is None:
                    continue
                candidates = rows[self._kinds[rows] == kind_code]
                asking = np.flatnonzero(np.asarray(kinds) == kind)
                for start in range(0, asking.size, _QUERY_BLOCK):
                    part = asking[start : start + _QUERY_BLOCK]
                    scores = queries[part] @ self._vectors[candidates].T
                    for line in scores:
                        top = np.flatnonzero(line >= min_score)
                        if top.size > k:
                            top = top[np.argsort(-line[top], kind="stable")[:k]]
                        found.update(dict.fromkeys(candidates[top].tolist()))
            return [(self._rows[i], self._vectors[i].copy()) for i in sorted(found)]


_QUERY_BLOCK = 256  # query rows scored at once: bounds memory on large stores
