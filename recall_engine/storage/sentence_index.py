"""The sentence vectors of chunks, and the dense score that counts them.

A chunk of several sentences is also embedded one sentence at a time (each with
the chunk's label: its speaker or its document title). Its dense score is the
mean of its own cosine similarity and its best sentence's:

    score = (cos(query, chunk) + max_s cos(query, sentence_s)) / 2

A question usually matches one sentence of the passage that answers it; in the
chunk's one vector the other sentences (a greeting, a question back, the rest of
a paragraph) pull that match towards the average (MaxP, Dai & Callan 2019). A
chunk of one sentence keeps its own similarity, which both terms then equal.

Measured with the packaged MiniLM over single LoCoMo dev turns, recall@10 cat
1-4 (cat-1 full@10): chunk vector 52.7 (12.7), best sentence alone 61.4 (16.9),
the mean 63.6 (22.5); fused with BM25 by normalised score 67.9 (21.8) -> 69.6
(25.4). Through the engine (``bench.locomo``): CHUNKS 52.7 -> 63.6, HYBRID 73.2 ->
74.9 (16.9 -> 24.6), GRAPH_COMPLETION 77.0 -> 78.3 (26.8 -> 32.4), routed 79.1 ->
79.8 (26.1 -> 31.0); category 5 of the graph family fell (GRAPH 84.4 -> 81.6), as
a labelled sentence matches a question naming its speaker better. HotpotQA-100
(R@5 / full@5 / MRR@10): CHUNKS 78.5 / 60.0 / 87.2 -> 79.0 / 59.0 / 90.3, HYBRID
94.5 / 91.0 / 90.3 -> 94.0 / 89.0 / 92.2. Tried: sentences without their label
(LoCoMo fused 67.3, cat-1 full 21.1: the label is what ties "I went camping" to
the person asked about); the maximum instead of the mean (fused 69.0, HotpotQA
dense 76.5 / 56.0); the mean of the best two sentences (HotpotQA 77.5 / 59.0).

HotpotQA-100 dense alone (R@2 / R@5 / full@5 / MRR@10), the label (``current``: the
title unless the text opens with it; ``always``; ``never``) against the score: the
mean (kept) 65.0 / 79.0 / 59.0 / 90.3, 64.5 / 78.5 / 59.0 / 90.8, 62.5 / 77.5 / 58.0 /
89.0; the chunk vector alone 60.5 / 78.5 / 60.0 / 87.2, 62.5 / 78.5 / 60.0 / 88.4,
58.5 / 79.0 / 61.0 / 86.7; the best sentence alone 64.0 / 77.5 / 57.0 / 89.7, 64.0 /
76.0 / 55.0 / 91.0; the maximum 64.0 / 78.0 / 58.0 / 89.4; RRF of the chunk and
sentence rankings 62.5 / 78.0 / 58.0 / 88.5; the sum of their z-scores 65.5 / 79.0 /
59.0 / 90.3. Plain MiniLM over whole paragraphs in the same run (``bench.plain_dense``)
58.5 / 79.0 / 62.0 / 86.6, with the title in front 62.5 / 78.5 / 61.0 / 88.4. No
variant reaches plain's full@5 without giving up most of the head the mean buys:
plain has both paragraphs in its top 5 for six questions where the mean does not
(there the second sits at rank 6, 7, 7, 7, 7 and 12), the mean for three (plain: 6,
7 and 12).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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
        if 4 * picked.size >= self._n:  # most sentences in scope: no gather copy
            similarity = (self._vectors[: self._n] @ query)[picked]
        else:
            similarity = self._vectors[picked] @ query
        owners = owner[picked]
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best = np.maximum.reduceat(similarity, starts)
        at = np.searchsorted(rows, owners[starts])
        out = scores.astype(np.float32, copy=True)
        out[at] = (out[at] + best) / 2
        return out
