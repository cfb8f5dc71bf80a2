"""A self-contained HTML view of a graph: one file, no network, safe to open.

All user text reaches the page either HTML-escaped (the title) or inside a
``<script type="application/json">`` element with ``<``, ``>`` and ``&``
written as JSON unicode escapes, so a name like ``</script><script>...`` stays
data. The script sets ``window.graphStats`` and ``#node-count``, and writes
``ok`` into ``#render-status`` once drawn (tests read both).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import Any

from recall_engine.core.graph import Entity, EntityType, Relation
from recall_engine.graph.visualize_page import PAGE

TYPE_COLORS: dict[EntityType, str] = {
    EntityType.PERSON: "#1f77b4",
    EntityType.ORGANIZATION: "#ff7f0e",
    EntityType.PLACE: "#2ca02c",
    EntityType.PRODUCT: "#d62728",
    EntityType.PROJECT: "#9467bd",
    EntityType.EVENT: "#8c564b",
    EntityType.WORK: "#e377c2",
    EntityType.DATE: "#7f7f7f",
    EntityType.CONCEPT: "#bcbd22",
    EntityType.EMAIL: "#17becf",
    EntityType.URL: "#aec7e8",
    EntityType.ERROR_CODE: "#ff9896",
    EntityType.ID: "#c5b0d5",
}
DEFAULT_MAX_NODES = 1500  # the layout is O(n^2) per step in the browser


def render_graph_html(
    entities: Iterable[Entity],
    relations: Iterable[Relation],
    *,
    title: str = "recall-engine graph",
    max_nodes: int = DEFAULT_MAX_NODES,
) -> str:
    """The page as a string. Relations whose ends are not among ``entities`` are
    left out; past ``max_nodes`` entities, the best-connected ones are shown and
    the header says how many there were.

    Raises:
        ValueError: when ``max_nodes`` is below 1.
    """
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    by_id = {e.id: e for e in entities}
    edges = [
        r
        for r in relations
        if r.source_id in by_id and r.target_id in by_id and r.source_id != r.target_id
    ]
    shown = _most_connected(list(by_id.values()), edges, max_nodes)
    index = {e.id: i for i, e in enumerate(shown)}
    kept = [r for r in edges if r.source_id in index and r.target_id in index]
    counts: dict[EntityType, int] = {}
    for e in shown:
        counts[e.type] = counts.get(e.type, 0) + 1
    data: dict[str, Any] = {
        "nodes": [
            {
                "id": e.id,
                "name": e.name,
                "type": e.type.value,
                "description": e.description,
                "aliases": list(e.aliases),
            }
            for e in shown
        ],
        "edges": [
            {
                "source": index[r.source_id],
                "target": index[r.target_id],
                "predicate": r.predicate,
                "context": r.context,
                "confidence": r.confidence,
            }
            for r in kept
        ],
        "types": [
            {"type": t.value, "color": TYPE_COLORS.get(t, "#999999"), "count": counts[t]}
            for t in EntityType
            if t in counts
        ],
        "total_nodes": len(by_id),
        "total_edges": len(edges),
    }
    return (
        PAGE.replace("__TITLE__", html.escape(title))
        .replace("__TOTAL_NODES__", str(len(by_id)))
        .replace("__NODES__", str(len(shown)))
        .replace("__EDGES__", str(len(kept)))
        .replace("__DATA__", script_json(data))
    )


def script_json(value: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``</``, ``<!--`` or
    line separators survive as raw characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def _most_connected(entities: list[Entity], relations: list[Relation], limit: int) -> list[Entity]:
    if len(entities) <= limit:
        return entities
    degree: dict[str, int] = {}
    for r in relations:
        degree[r.source_id] = degree.get(r.source_id, 0) + 1
        degree[r.target_id] = degree.get(r.target_id, 0) + 1
    order = {e.id: i for i, e in enumerate(entities)}
    keep = set(sorted(order, key=lambda eid: (-degree.get(eid, 0), order[eid]))[:limit])
    return [e for e in entities if e.id in keep]
