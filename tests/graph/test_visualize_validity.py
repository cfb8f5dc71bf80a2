"""The graph page draws a superseded fact's edge dashed, with the dates it held."""

from __future__ import annotations

import json
import re
from datetime import datetime

from recall_engine.graph import Entity, EntityType, Relation, render_graph_html

NS = "t/ds"


def test_superseded_edges_carry_their_dates_and_are_drawn_dashed() -> None:
    ann = Entity.create("Ann", EntityType.PERSON, namespace=NS)
    lyon = Entity.create("Lyon", EntityType.PLACE, namespace=NS)
    paris = Entity.create("Paris", EntityType.PLACE, namespace=NS)

    def lives(rid: str, place: Entity, start: datetime, end: datetime | None) -> Relation:
        return Relation(
            id=rid, source_id=ann.id, target_id=place.id, predicate="lives_in",
            raw_predicate="lives in", context="", confidence=0.8, chunk_id=rid, namespace=NS,
            valid_from=start, valid_until=end, superseded_by="r2" if end else None, family="home",
        )  # fmt: skip

    relations = [
        lives("r1", lyon, datetime(2023, 1, 5), datetime(2024, 3, 1)),
        lives("r2", paris, datetime(2024, 3, 1), None),
    ]
    page = render_graph_html([ann, lyon, paris], relations)
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    assert match is not None
    edges = json.loads(match.group(1))["edges"]
    assert sorted((e["valid_from"], e["valid_until"]) for e in edges) == [
        ("2023-01-05", "2024-03-01"),
        ("2024-03-01", None),
    ]
    assert "setLineDash(e.valid_until ? [5, 4] : [])" in page
