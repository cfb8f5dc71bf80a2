"""A self-contained HTML view of a graph: one file, no network, safe to open.

All user text reaches the page either HTML-escaped (the title) or inside a
``<script type="application/json">`` element with ``<``, ``>`` and ``&``
written as JSON unicode escapes, so a name like ``</script><script>...`` stays
data. Positions come laid out from Python (``layout``); the page only fits them
to its viewport and draws. The script sets ``window.graphStats`` and
``#node-count``, writes ``ok`` into ``#render-status`` once drawn, and keeps in
``#layout-dump`` (JSON) the viewport size and the on-screen position of every
drawn node (tests read all three). A superseded fact's edge (one with
``valid_until``) is drawn dashed, its label giving the dates it held.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable

from recall_engine.core.graph import Entity, EntityType, Relation
from recall_engine.graph.layout import layout
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
DEFAULT_MAX_NODES = 500
"""Past this many entities the page shows the best-connected ones and says so. A
1400x1000 window holds a few hundred labelled nodes (one per ~50x50 px); the layout
is O(n^2) a step (why 500: ``docs/decisions.md``)."""
DEFAULT_HIDDEN_TYPES: tuple[EntityType, ...] = (EntityType.DATE,)
"""Kinds the page opens with hidden (a click on the legend shows them). The rule
extractor never makes a date the end of a relation: a date is the time of the
relations and events said on it (their ``time_text``, shown on hover), so a DATE
node is a dot with no edge, and a conversation has one for every day it names."""


def render_graph_html(
    entities: Iterable[Entity],
    relations: Iterable[Relation],
    *,
    title: str = "recall-engine graph",
    max_nodes: int = DEFAULT_MAX_NODES,
    hidden_types: Iterable[EntityType] = DEFAULT_HIDDEN_TYPES,
) -> str:
    """The page as a string, laid out (see ``layout``) so that it opens with
    every visible node on screen. Relations whose ends are not among
    ``entities`` are left out; past ``max_nodes`` entities, the best-connected
    of the kinds not in ``hidden_types`` are shown first, and the header says
    how many there were.

    Raises:
        ValueError: ``max_nodes`` below 1, or ``hidden_types`` holding
            something that is not an ``EntityType``.
    """
    if max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1, got {max_nodes}")
    hidden = tuple(hidden_types)
    wrong = [t for t in hidden if not isinstance(t, EntityType)]
    if wrong:
        raise ValueError(
            f"hidden_types must hold EntityType members (e.g. EntityType.DATE), got {wrong[0]!r}"
        )
    by_id = {e.id: e for e in entities}
    edges = [
        r
        for r in relations
        if r.source_id in by_id and r.target_id in by_id and r.source_id != r.target_id
    ]
    shown = _most_connected(list(by_id.values()), edges, max_nodes, set(hidden))
    index = {e.id: i for i, e in enumerate(shown)}
    kept = [r for r in edges if r.source_id in index and r.target_id in index]
    placed = layout(
        len(shown),
        sorted({(index[r.source_id], index[r.target_id]) for r in kept}),
        last=[e.type in hidden for e in shown],
    )
    counts: dict[EntityType, int] = {}
    for e in shown:
        counts[e.type] = counts.get(e.type, 0) + 1
    data: dict[str, object] = {
        "nodes": [
            {
                "id": e.id,
                "name": e.name,
                "type": e.type.value,
                "description": e.description,
                "aliases": list(e.aliases),
                "x": x,
                "y": y,
            }
            for e, (x, y) in zip(shown, placed.positions, strict=True)
        ],
        "edges": [
            {
                "source": index[r.source_id],
                "target": index[r.target_id],
                "predicate": r.predicate,
                "context": r.context,
                "confidence": r.confidence,
                "time": r.time_text,
                "valid_from": r.valid_from.date().isoformat() if r.valid_from else None,
                "valid_until": r.valid_until.date().isoformat() if r.valid_until else None,
            }
            for r in kept
        ],
        "types": [
            {"type": t.value, "color": TYPE_COLORS.get(t, "#999999"), "count": counts[t]}
            for t in EntityType
            if t in counts
        ],
        "hidden": sorted({t.value for t in hidden}),
        "edge_length": placed.edge_length,
        "total_nodes": len(by_id),
        "total_edges": len(edges),
    }
    sampled = len(shown) < len(by_id)
    note = f"showing the {len(shown)} best-connected of {len(by_id)} entities" if sampled else ""
    return (
        PAGE.replace("__TITLE__", html.escape(title))
        .replace("__TOTAL_NODES__", str(len(by_id)))
        .replace("__NODES__", str(len(shown)))
        .replace("__EDGES__", str(len(kept)))
        .replace("__SAMPLED__", note)
        .replace("__DATA__", script_json(data))
    )


def script_json(value: object) -> str:
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


def _most_connected(
    entities: list[Entity], relations: list[Relation], limit: int, hidden: set[EntityType]
) -> list[Entity]:
    """The ``limit`` entities to draw, in their given order: the kinds shown at
    first before the hidden ones, then by degree."""
    if len(entities) <= limit:
        return entities
    degree: dict[str, int] = {}
    for r in relations:
        degree[r.source_id] = degree.get(r.source_id, 0) + 1
        degree[r.target_id] = degree.get(r.target_id, 0) + 1
    rank = sorted(
        range(len(entities)),
        key=lambda i: (entities[i].type in hidden, -degree.get(entities[i].id, 0), i),
    )
    keep = set(rank[:limit])
    return [e for i, e in enumerate(entities) if i in keep]
