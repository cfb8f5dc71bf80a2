"""A tenant graph on FalkorDB as recall-engine wrote it before facts had time
(2026-12-03 to 2026-12-05, commits 0a10255 to ba71f27^), written with the
``falkordb`` client directly, so that the upgrade tests need no old checkout.

That version's graph model (its ``storage/falkordb_schema.py``) had exactly the
properties of ``old_layout``'s Kuzu columns: facts (``RELATES``) with no
``valid_from``, ``valid_until``, ``superseded_by``, ``superseded_by_chunk`` or
``family``, events with no ``valid_from``, entity aliases and keys as lists. So
the rows are ``old_layout``'s (what was stored for ``TEXTS``), each node and edge
with the properties of its row (a null is no property, as FalkorDB stores it).
Its range indexes and unique keys are left out: the store makes the missing ones
at open, as that version did. Its data dir's ``store.json`` named the graph.
"""

from __future__ import annotations

import json
from pathlib import Path

from recall_engine.embedding.embedder import Embedder
from tests.storage.old_layout import ROWS, write_vectors_and_meta

ENDS = {
    "HAS_DATA": ("Dataset", "Document"),
    "CONTAINS": ("Document", "Chunk"),
    "IS_A": ("Entity", "EntityType"),
    "MENTIONS": ("Chunk", "Entity"),
    "RELATES": ("Entity", "Entity"),
    "EVENT_OF": ("Event", "Entity"),
    "EVENT_IN": ("Event", "Chunk"),
    "MADE_FROM": ("Summary", "Document"),
}
"""Each relationship type's (from, to) labels, as that version drew them."""


def write_graph(graph: object) -> None:
    """Write the old graph's nodes and edges into ``graph`` (a ``falkordb`` Graph)."""
    rows = json.loads(ROWS.read_text(encoding="utf-8"))
    for label, found in rows["nodes"].items():
        props = [_props(found["columns"], row) for row in found["rows"]]
        graph.query(f"UNWIND $rows AS r CREATE (n:{label}) SET n += r", {"rows": props})  # type: ignore[attr-defined]
    for rel, found in rows["rels"].items():
        start, end = ENDS[rel]
        edges = [
            {"from": row[0], "to": row[1], "props": _props(found["columns"], row[2:])}
            for row in found["rows"]
        ]
        graph.query(  # type: ignore[attr-defined]
            f"UNWIND $rows AS r MATCH (a:{start} {{id: r.from}}), (b:{end} {{id: r.to}}) "
            f"CREATE (a)-[e:{rel}]->(b) SET e += r.props",
            {"rows": edges},
        )


def build(data_dir: Path, embedder: Embedder, graph: object, graph_name: str) -> Path:
    """Write the old data dir of tenant ``default`` under ``data_dir`` (its vectors
    and ``store.json``) and its graph into ``graph``, the FalkorDB graph named
    ``graph_name``; return the tenant's folder."""
    root = data_dir / "tenants" / "default"
    root.mkdir(parents=True)
    write_graph(graph)
    write_vectors_and_meta(root, embedder, "default", graph=f"falkordb:{graph_name}")
    return root


def _props(columns: list[str], row: list[object]) -> dict[str, object]:
    return {c: v for c, v in zip(columns, row, strict=True) if v is not None}
