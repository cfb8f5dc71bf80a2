"""One in-memory vector index for chunks and every graph table.

LanceDB is the durable store; a ``VectorIndex`` mirrors one of its tables in RAM
so a query is one matrix-vector product (about 1 ms at 10k x 384) instead of a
LanceDB round trip. Rows keep a dataset code, a kind code and an alive mask, so
scoping and deletion are mask operations; search is exact cosine (rows are unit
length). It is filled when a tenant opens and kept in step by every ingest and
deletion.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, NamedTuple, TypeVar

import numpy as np

from recall_engine.core.cells import Record
from recall_engine.storage.similarities import similarities_at
from recall_engine.storage.time_filter import to_epoch

Row = TypeVar("Row")
Rescore = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""(query, candidate rows in ascending order, their cosine similarities) -> scores."""


class RowKeys(NamedTuple):
    """What the index needs to know of a row."""

    id: str
    dataset_id: str
    data_id: str | None = None
    kind: str = ""
    time: float = math.nan
    """Epoch seconds of the row's resolved time (NaN: none), for interval filters."""


def dict_keys(row: Record) -> RowKeys:
    """Keys of a graph-table row (a dict with ``id``, ``dataset_id``, maybe
    ``data_id``, ``type`` and ``time``)."""
    return RowKeys(
        row["id"], row["dataset_id"], row.get("data_id"), row.get("type") or "",
        to_epoch(row.get("time")),
    )  # fmt: skip


def top_k(scores: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best (row, score) pairs, best first, ties broken by row order."""
    if rows.size == 0 or k <= 0:
        return []
    if rows.size > k:
        # Keep every row tied with the k-th score (argpartition keeps an arbitrary one
        # of them), so the row-order tie break below decides which make the cut.
        kth = np.partition(scores, rows.size - k)[rows.size - k]
        keep = np.flatnonzero(scores >= kth)
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:k]
    return list(zip(rows[order].tolist(), scores[order].tolist(), strict=True))


class VectorIndex(Generic[Row]):
    """Rows with unit vectors, searchable by cosine similarity within a dataset scope."""

    def __init__(self, dimension: int, keys: Callable[[Row], RowKeys]) -> None:
        self.dimension = dimension
        self._keys = keys
        self.lock = threading.RLock()
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._codes = np.zeros(0, dtype=np.int32)
        self._kinds = np.zeros(0, dtype=np.int32)
        self._times = np.zeros(0, dtype=np.float64)
        self._alive = np.zeros(0, dtype=bool)
        self._n = 0
        self._removed = 0
        self._rows: list[Row] = []
        self._by_id: dict[str, list[int]] = {}
        self._by_data: dict[str, list[int]] = {}
        self._dataset_codes: dict[str, int] = {}
        self._kind_codes: dict[str, int] = {}

    def __len__(self) -> int:
        return self._n - self._removed  # rows are masked out once, never revived

    @property
    def size(self) -> int:
        """Rows ever added (alive or not): row numbers run below it."""
        return self._n

    @property
    def removed(self) -> int:
        """Rows ever masked out: with ``size``, what tells a reader that rows were
        only added since it last looked (``rows_since``)."""
        return self._removed

    def _reserve(self, extra: int) -> None:
        if self._n + extra <= self._vectors.shape[0]:
            return
        capacity = max(self._n + extra, 2 * self._vectors.shape[0], 256)

        def grow(array: np.ndarray) -> np.ndarray:
            bigger = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
            bigger[: self._n] = array[: self._n]
            return bigger

        self._vectors, self._codes = grow(self._vectors), grow(self._codes)
        self._kinds, self._alive = grow(self._kinds), grow(self._alive)
        self._times = grow(self._times)

    def add(self, rows: Sequence[Row], vectors: np.ndarray) -> None:
        """Append rows; ``vectors[i]`` is the unit vector of ``rows[i]``.

        Raises:
            ValueError: ``vectors`` does not have one row of ``dimension`` per row.
        """
        if len(rows) == 0:
            return
        if vectors.shape != (len(rows), self.dimension):
            raise ValueError(
                f"expected vectors of shape ({len(rows)}, {self.dimension}), got {vectors.shape}"
            )
        with self.lock:
            self._reserve(len(rows))
            start = self._n
            self._vectors[start : start + len(rows)] = vectors
            for at, row in enumerate(rows, start=start):
                keys = self._keys(row)
                self._codes[at] = self._dataset_codes.setdefault(
                    keys.dataset_id, len(self._dataset_codes)
                )
                self._kinds[at] = self._kind_codes.setdefault(keys.kind, len(self._kind_codes))
                self._times[at] = keys.time
                self._alive[at] = True
                self._by_id.setdefault(keys.id, []).append(at)
                if keys.data_id:
                    self._by_data.setdefault(keys.data_id, []).append(at)
            self._rows.extend(rows)
            self._n += len(rows)

    def remove(self, *, ids: Iterable[str] = (), data_ids: Iterable[str] = ()) -> int:
        """Mask out rows by id or by data item; return how many went."""
        removed = 0
        with self.lock:
            rows = [r for i in ids for r in self._by_id.pop(i, [])]
            for at in rows:  # a data item whose last row went by id is gone too
                data_id = self._keys(self._rows[at]).data_id
                left = [r for r in self._by_data.get(data_id or "", []) if r != at]
                if left:
                    self._by_data[data_id or ""] = left
                else:
                    self._by_data.pop(data_id or "", None)
            rows += [r for d in data_ids for r in self._by_data.pop(d, [])]
            for row in rows:
                if self._alive[row]:
                    self._alive[row] = False
                    removed += 1
            self._removed += removed
        return removed

    def has_data(self, data_id: str) -> bool:
        return data_id in self._by_data

    def live_dataset_ids(self) -> set[str]:
        """The datasets that hold at least one live row."""
        with self.lock:
            codes = set(np.unique(self._codes[: self._n][self._alive[: self._n]]).tolist())
            return {d for d, code in self._dataset_codes.items() if code in codes}

    def live_ids(self) -> set[str]:
        """The ids of every live row."""
        with self.lock:
            alive = self._alive
            return {i for i, rows in self._by_id.items() if any(alive[at] for at in rows)}

    def alive(self, row_id: str) -> bool:
        """Whether a live row has this id."""
        return any(self._alive[at] for at in self._by_id.get(row_id, ()))

    def scope_mask(self, dataset_ids: Sequence[str] | None) -> np.ndarray:
        """Alive rows of these datasets (None: of every dataset)."""
        mask = self._alive[: self._n].copy()
        if dataset_ids is not None:
            codes = [self._dataset_codes[d] for d in dataset_ids if d in self._dataset_codes]
            if len(codes) == 1:  # the usual scope: one comparison, not isin's sort
                mask &= self._codes[: self._n] == codes[0]
            else:
                mask &= np.isin(self._codes[: self._n], np.asarray(codes, dtype=np.int32))
        return mask

    def time_mask(self, start: float, end: float) -> np.ndarray:
        """Rows whose time lies in [start, end) (epoch seconds); rows without one are out."""
        times = self._times[: self._n]
        with np.errstate(invalid="ignore"):
            return (times >= start) & (times < end)

    def times(self, rows: np.ndarray) -> np.ndarray:
        return self._times[rows]

    def row(self, at: int) -> Row:
        return self._rows[at]

    def get(self, ids: Iterable[str], dataset_ids: Sequence[str] | None = None) -> list[Row]:
        """Alive rows with these ids (in the scope), in the order asked."""
        with self.lock:
            codes = self._dataset_codes
            allowed = None if dataset_ids is None else {codes[d] for d in dataset_ids if d in codes}
            out = []
            for i in ids:
                for at in self._by_id.get(i, []):
                    if self._alive[at] and (allowed is None or int(self._codes[at]) in allowed):
                        out.append(self._rows[at])
            return out

    def vectors_of(
        self, ids: Iterable[str], dataset_ids: Sequence[str] | None = None
    ) -> dict[str, np.ndarray]:
        """The stored vectors of the alive rows with these ids (in the scope).

        Args:
            ids: row ids.
            dataset_ids: the scope; None: every dataset.

        Returns:
            Row id -> a copy of its vector (the first alive row of an id).
        """
        with self.lock:
            codes = self._dataset_codes
            allowed = None if dataset_ids is None else {codes[d] for d in dataset_ids if d in codes}
            out: dict[str, np.ndarray] = {}
            for i in ids:
                for at in self._by_id.get(i, []):
                    if self._alive[at] and (allowed is None or int(self._codes[at]) in allowed):
                        out.setdefault(i, self._vectors[at].copy())
            return out

    def search(
        self,
        query: np.ndarray,
        k: int,
        dataset_ids: Sequence[str] | None = None,
        *,
        where: np.ndarray | None = None,
        rescore: Rescore | None = None,
    ) -> list[tuple[Row, float]]:
        """Top ``k`` alive rows in scope by cosine similarity, ties by row order.

        ``where`` is an optional boolean mask over rows (``size`` long) that
        narrows the candidates further (e.g. a time interval); ``rescore`` maps
        (query, candidate rows, their similarities) to the scores ranked instead.
        """
        with self.lock:
            mask = self.scope_mask(dataset_ids)
            if where is not None:
                mask &= where[: self._n]
            candidates = np.flatnonzero(mask)
            if candidates.size == 0 or k <= 0:
                return []
            query = np.asarray(query, dtype=np.float32).ravel()
            scores = similarities_at(self._vectors, candidates, query)
            if rescore is not None:
                scores = rescore(query, candidates, scores)
            return [(self._rows[at], score) for at, score in top_k(scores, candidates, k)]

    def rows(self, dataset_ids: Sequence[str] | None = None) -> list[Row]:
        """Every alive row in scope, in insertion order."""
        with self.lock:
            return [self._rows[at] for at in np.flatnonzero(self.scope_mask(dataset_ids))]

    def rows_since(self, start: int) -> list[Row]:
        """The alive rows numbered ``start`` or later (added once the index held
        ``start`` rows), in insertion order."""
        with self.lock:
            alive = np.flatnonzero(self._alive[start : self._n])
            return [self._rows[start + at] for at in alive]

    def nearest(
        self,
        queries: np.ndarray,
        kinds: Sequence[str],
        *,
        dataset_id: str,
        k: int,
        min_score: float,
    ) -> list[tuple[Row, np.ndarray]]:
        """The alive rows of ``dataset_id`` among the ``k`` nearest to some query
        row with the same kind (``kinds[i]`` for ``queries[i]``) and a cosine
        similarity of at least ``min_score``; each row once, with its vector.
        Entity resolution at ingest uses it."""
        queries = np.asarray(queries, dtype=np.float32).reshape(-1, self.dimension)
        with self.lock:
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
