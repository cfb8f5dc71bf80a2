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
