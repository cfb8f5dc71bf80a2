"""The sentence vectors of chunks, and the dense score that counts them.

A chunk of several sentences is also embedded one sentence at a time (each with
the chunk's label: its speaker or its document title). Its dense score is the
mean of its own cosine similarity and its best sentence's:

    score = (cos(query, chunk) + max_s cos(query, sentence_s)) / 2

A question usually matches one sentence of the passage that answers it; in the
chunk's one vector the other sentences (a greeting, a question back, the rest of
a paragraph) pull that match towards the average (MaxP, Dai & Callan 2019). A
chunk of one sentence keeps its own similarity, which both terms then equal.

What it adds, what it costs at ingest (about twice the text to embed; the
``sentence_vectors`` setting turns it off) and the variants measured and not kept
(other labels, the maximum, rank fusion): ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recall_engine.storage.similarities import similarities_at


class SentenceVectors:
    """Unit sentence vectors, each owned by a row of a chunk ``VectorIndex``.

    Rows only grow, so owners are appended in order and each row's sentences are
    contiguous: a per-row maximum is one ``np.maximum.reduceat``. A removed chunk
    needs nothing here: its row is out of every candidate set.
    """

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._vectors = np.zeros((0, dimension), dtype=np.float32)
        self._owner = np.zeros(0, dtype=np.int64)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def add(self, first_row: int, per_row: Sequence[np.ndarray]) -> None:
        """Append the sentence vectors of rows ``first_row, first_row + 1, ...``;
        ``per_row[i]`` is a (sentences x dimension) array, possibly empty.

        Raises:
            ValueError: an array is not of ``dimension`` columns.
        """
        counts = [len(v) for v in per_row]
        total = sum(counts)
        if total == 0:
            return
        blocks = [
            np.asarray(v, dtype=np.float32).reshape(-1, self.dimension) for v in per_row if len(v)
        ]
        if self._n + total > self._vectors.shape[0]:
            capacity = max(self._n + total, 2 * self._vectors.shape[0], 256)
            vectors = np.zeros((capacity, self.dimension), dtype=np.float32)
            owner = np.zeros(capacity, dtype=np.int64)
            vectors[: self._n], owner[: self._n] = self._vectors[: self._n], self._owner[: self._n]
            self._vectors, self._owner = vectors, owner
        self._vectors[self._n : self._n + total] = np.concatenate(blocks)
        self._owner[self._n : self._n + total] = np.repeat(
            np.arange(first_row, first_row + len(per_row)), counts
        )
        self._n += total

    def blend(self, query: np.ndarray, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """``scores`` (the chunk similarities of ``rows``, ascending row numbers)
        with each row that has sentences scored ``(chunk + best sentence) / 2``."""
        if self._n == 0 or rows.size == 0:
            return scores
        owner = self._owner[: self._n]
        wanted = np.zeros(int(max(rows[-1], owner[-1])) + 1, dtype=bool)
        wanted[rows] = True
        picked = np.flatnonzero(wanted[owner])
        if picked.size == 0:
            return scores
        similarity = similarities_at(self._vectors, picked, query)
        owners = owner[picked]
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best = np.maximum.reduceat(similarity, starts)
        at = np.searchsorted(rows, owners[starts])
        out = scores.astype(np.float32, copy=True)
        out[at] = (out[at] + best) / 2
        return out
