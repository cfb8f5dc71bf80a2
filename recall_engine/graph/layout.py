"""Node positions for the graph page, computed here so the browser only draws.

A force layout in the browser costs O(n^2) per step on the reader's machine and
lets unconnected pieces drift off screen. Here each connected component gets a
Fruchterman-Reingold layout of its own (numpy, a fixed seed: the same graph
always looks the same), and the components are then packed in rows, largest
first, into a box about as wide as a screen is, so nothing floats far away and
the page can fit every node into its viewport with one scale and one shift.
Components that only hold kinds hidden when the page opens are packed last, so
the visible part is not spread around their empty places.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

_BLOCK = 512  # rows of the pairwise repulsion computed at once (bounds memory)
_GAP = 1.0  # space between packed components, in ideal edge lengths
_LONE_WIDTH = 3.0  # a node with no edge sits in a cell this wide: its label is beside it


class Layout(NamedTuple):
    """Positions in ``[0, 1]`` on the longer side, and how long an ideal edge is
    there (the page uses it not to blow a tiny graph up to the whole screen)."""

    positions: list[tuple[float, float]]
    edge_length: float


def layout(
    n: int,
    edges: Sequence[tuple[int, int]],
    *,
    last: Sequence[bool] | None = None,
    aspect: float = 1.4,
    seed: int = 0,
) -> Layout:
    """Positions of nodes ``0..n-1`` joined by ``edges``, scaled into ``[0, 1]``
    on the longer side (the other side keeps the proportion).

    ``last`` marks nodes whose components go after the others (the kinds hidden
    at first); ``aspect`` is the width/height ratio the packing aims at.

    Raises:
        ValueError: an edge names a node outside ``0..n-1``, or ``last`` has
            another length than ``n``.
    """
    if last is not None and len(last) != n:
        raise ValueError(f"last has {len(last)} flags for {n} nodes")
    for a, b in edges:
        if not (0 <= a < n and 0 <= b < n):
            raise ValueError(f"edge ({a}, {b}) names a node outside 0..{n - 1}")
    if n == 0:
        return Layout([], 1.0)
    components = _components(n, edges)
    flags = list(last) if last is not None else [False] * n
    components.sort(key=lambda c: (all(flags[i] for i in c), -len(c), c[0]))
    later = [all(flags[i] for i in c) for c in components]
    which, where = [0] * n, [0] * n  # node -> its component, its place in it
    for c, component in enumerate(components):
        for i, node in enumerate(component):
            which[node], where[node] = c, i
    inner: list[list[tuple[int, int]]] = [[] for _ in components]
    for a, b in edges:
        if a != b:
            inner[which[a]].append((where[a], where[b]))
    local = [_force(len(c), e, seed) for c, e in zip(components, inner, strict=True)]
    pos = np.zeros((n, 2))
    for component, shape, offset in zip(
        components, local, _pack(local, later, aspect), strict=True
    ):
        pos[component] = shape + offset
    pos -= pos.min(axis=0)
    span = float(pos.max()) or 1.0
    pos /= span
    return Layout([(round(float(x), 5), round(float(y), 5)) for x, y in pos], 1.0 / span)


def _components(n: int, edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _force(n: int, edges: list[tuple[int, int]], seed: int) -> np.ndarray:
    """Fruchterman-Reingold with ideal edge length 1, shifted to start at (0, 0).

    Pairwise repulsion is exact (O(n^2) a step, in blocks), so the step count
    falls as ``n`` grows; the page caps how many nodes reach here."""
    if n == 1:
        return np.zeros((1, 2))
    rng = np.random.default_rng(seed)
    pos = (rng.random((n, 2)) - 0.5) * math.sqrt(n)
    src = np.array([a for a, _ in edges], dtype=np.int64)
    dst = np.array([b for _, b in edges], dtype=np.int64)
    steps = max(30, min(200, int(4e7 / (n * n))))
    temperature = 0.1 * math.sqrt(n) + 0.5
    for step in range(steps):
        disp = np.zeros((n, 2))
        for lo in range(0, n, _BLOCK):
            delta = pos[lo : lo + _BLOCK, None, :] - pos[None, :, :]
            d2 = np.einsum("ijk,ijk->ij", delta, delta)
            d2[d2 < 1e-9] = 1e-9
            disp[lo : lo + _BLOCK] += np.einsum("ijk,ij->ik", delta, 1.0 / d2)
        if len(src):
            delta = pos[src] - pos[dst]
            pull = delta * np.linalg.norm(delta, axis=1, keepdims=True)
            np.subtract.at(disp, src, pull)
            np.add.at(disp, dst, pull)
        disp -= 0.05 * (pos - pos.mean(axis=0))  # a little gravity keeps leaves close
        length = np.linalg.norm(disp, axis=1, keepdims=True)
        length[length < 1e-9] = 1e-9
        cap = temperature * (1 - step / steps) + 0.01
        pos += disp / length * np.minimum(length, cap)
    return pos - pos.min(axis=0)


def _pack(shapes: list[np.ndarray], later: list[bool], aspect: float) -> list[np.ndarray]:
    """Shelf packing of laid-out components: left to right in rows of a width
    chosen for ``aspect``; the ``later`` ones (sorted last) start a row of their own."""
    sizes = [
        np.array([_LONE_WIDTH, _GAP]) if len(shape) == 1 else shape.max(axis=0) + _GAP
        for shape in shapes
    ]
    area = sum(float(w * h) for w, h in sizes)
    width = max(math.sqrt(area * aspect), max(float(w) for w, _ in sizes))
    offsets: list[np.ndarray] = []
    x = y = row_height = 0.0
    previous = False
    for (w, h), group in zip(sizes, later, strict=True):
        if x > 0 and (x + w > width or group != previous):
            x, y, row_height = 0.0, y + row_height, 0.0
        offsets.append(np.array([x, y]))
        x += float(w)
        row_height = max(row_height, float(h))
        previous = group
    return offsets
