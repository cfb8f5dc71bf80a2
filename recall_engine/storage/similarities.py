"""Query-time similarity products, off the BLAS thread pool.

A query's similarity to every stored row is one matrix-vector product (thousands of
rows by 384 dimensions). ``matrix @ query`` hands it to OpenBLAS, which splits it over
every core: on a busy machine its threads wait for each other (one 7,961 x 384 product
took 7.8 ms of CPU time instead of 0.35 ms at load 9-16), and holding its pool to one
thread is process-wide state that concurrent products must take turns with. numpy's
``vecdot`` computes the same row-by-row dot products in numpy's own loop, on the
calling thread, without the pool: about twice as fast as OpenBLAS's one-thread
product here (14k x 384: 1.07 against 2.26 ms, cache cold) and free to run beside
another thread's product. Its sums are ordered differently from OpenBLAS's, so a
similarity may differ from ``matrix @ query`` in its last bit (``docs/decisions.md``).

A search scores the rows of its scope only (``similarities_at``). Copying those rows
out of the matrix first (numpy's fancy indexing) cost more than their products: 1,300
sentence rows took 0.18 ms to gather and 0.05 ms to score. A dataset's rows are mostly
stored together (written in one ingest, appended in order), so they are scored where
they lie, one contiguous run at a time; scattered rows are copied out, unless they are
most of the matrix, whose every row is then scored.
"""

from __future__ import annotations

import numpy as np


def similarities(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The dot product of every row of ``matrix`` with ``query`` (module docstring).

    Args:
        matrix: rows of vectors, float32.
        query: one vector of the rows' dimension.

    Returns:
        One similarity per row.
    """
    return np.vecdot(matrix, query)


RUN_ROWS = 16
"""The fewest rows per contiguous run, on average, for ``similarities_at`` to score
the runs in place rather than copy the rows out (each run costs a call, which costs
about as much as copying seven or eight rows)."""


def similarities_at(matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``similarities(matrix[rows], query)``, without copying ``rows`` out of
    ``matrix`` where they lie in few contiguous runs (module docstring); the values
    are the same, row for row.

    Args:
        matrix: rows of vectors, float32 (at least ``rows.max() + 1`` of them).
        rows: ascending row numbers, each once.
        query: one vector of the rows' dimension.

    Returns:
        One similarity per entry of ``rows``, in its order.
    """
    if rows.size == 0:
        return np.empty(0, dtype=np.float32)
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    if (breaks.size + 1) * RUN_ROWS > rows.size:  # scattered
        span = int(rows[-1]) + 1
        if 4 * rows.size >= span:  # most of the rows up to the last: score them all
            return similarities(matrix[:span], query)[rows]
        return similarities(matrix[rows], query)
    starts = [int(rows[0]), *rows[breaks].tolist()]
    ends = [*(rows[breaks - 1] + 1).tolist(), int(rows[-1]) + 1]
    if len(starts) == 1:
        return similarities(matrix[starts[0] : ends[0]], query)
    runs = zip(starts, ends, strict=True)
    return np.concatenate([similarities(matrix[a:b], query) for a, b in runs])
