"""The page's precomputed layout: compact, deterministic, components apart."""

from __future__ import annotations

import math

import pytest

from recall_engine.graph.layout import layout


def _star(hub: int, leaves: range) -> list[tuple[int, int]]:
    return [(hub, leaf) for leaf in leaves]


def _graph() -> tuple[int, list[tuple[int, int]]]:
    """A 21-node star, a 10-node path, a triangle and 20 nodes with no edge."""
    edges = _star(0, range(1, 21)) + [(i, i + 1) for i in range(21, 30)]
    edges += [(31, 32), (32, 33), (33, 31)]
    return 54, edges


def test_positions_fill_the_unit_box_and_repeat_exactly() -> None:
    n, edges = _graph()
    first = layout(n, edges)
    assert first == layout(n, edges)
    xs = [x for x, _ in first.positions]
    ys = [y for _, y in first.positions]
    assert min(xs) == 0 and min(ys) == 0 and max(max(xs), max(ys)) == 1
    # The packing aims at a screen's shape, not a long strip.
    assert 0.5 < max(xs) / max(ys) < 3
    assert 0 < first.edge_length < 1


def test_components_do_not_overlap_and_edges_stay_short() -> None:
    n, edges = _graph()
    placed = layout(n, edges)
    pos, unit = placed.positions, placed.edge_length

    def box(nodes: range) -> tuple[float, float, float, float]:
        xs, ys = [pos[i][0] for i in nodes], [pos[i][1] for i in nodes]
        return min(xs), min(ys), max(xs), max(ys)

    star, path, triangle = box(range(0, 21)), box(range(21, 31)), box(range(31, 34))
    for a, b in [(star, path), (star, triangle), (path, triangle)]:
        assert a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1], (a, b)
    lengths = [math.dist(pos[a], pos[b]) / unit for a, b in edges]
    assert max(lengths) < 4 and min(lengths) > 0.2
    # Nodes without edges are not piled on one point.
    lone = {pos[i] for i in range(34, 54)}
    assert len(lone) == 20


def test_components_marked_last_are_packed_after_the_rest() -> None:
    n, edges = _graph()
    last = [i >= 34 for i in range(n)]  # e.g. dates, hidden when the page opens
    pos = layout(n, edges, last=last).positions
    assert min(pos[i][1] for i in range(34, 54)) >= max(pos[i][1] for i in range(34))


def test_one_node_and_no_node() -> None:
    assert layout(0, []).positions == []
    assert layout(1, []).positions == [(0.0, 0.0)]
    assert len(layout(2, [(0, 1), (1, 0), (0, 0)]).positions) == 2


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match=r"outside 0\.\.2"):
        layout(3, [(0, 3)])
    with pytest.raises(ValueError, match="2 flags for 3 nodes"):
        layout(3, [], last=[True, False])
