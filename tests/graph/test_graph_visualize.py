"""The self-contained HTML view: structure, escaping, and a real browser load."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from recall_engine.core.graph import relation_id
from recall_engine.graph import Entity, EntityType, GraphExtraction, Relation, render_graph_html

CHROMIUM = Path("/usr/bin/chromium")
NS = "t/ds"


def _graph() -> GraphExtraction:
    ada = Entity.create(
        "Ada Lovelace", EntityType.PERSON, namespace=NS, aliases=["Dr. Ada Lovelace"]
    )
    london = Entity.create("London", EntityType.PLACE, namespace=NS)
    evil = Entity.create('</script><script>alert("x")</script>', EntityType.CONCEPT, namespace=NS)
    amp = Entity.create("Q&A <b>bold</b> \u2028", EntityType.ORGANIZATION, namespace=NS)
    relations = tuple(
        Relation(
            id=relation_id(NS, s.id, p, t.id, "c1"),
            source_id=s.id,
            target_id=t.id,
            predicate=p,
            raw_predicate=p,
            context="ctx </script>",
            confidence=0.5,
            chunk_id="c1",
            namespace=NS,
        )
        for s, p, t in [
            (ada, "lives_in", london),
            (evil, "related_to", ada),
            (amp, "related_to", london),
        ]
    )
    return GraphExtraction(entities=(ada, london, evil, amp), relations=relations)


def _data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def test_page_structure_and_counts() -> None:
    graph = _graph()
    page = render_graph_html(graph.entities, graph.relations, title="Ada & <friends>")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>Ada &amp; &lt;friends&gt;</title>" in page
    assert '<span id="node-count">4</span>' in page and '<span id="edge-count">3</span>' in page
    assert "window.graphStats" in page and 'id="search"' in page and 'id="legend"' in page
    data = _data(page)
    assert [n["name"] for n in data["nodes"]][:2] == ["Ada Lovelace", "London"]
    assert {e["predicate"] for e in data["edges"]} == {"lives_in", "related_to"}
    assert {t["type"] for t in data["types"]} == {"PERSON", "PLACE", "CONCEPT", "ORGANIZATION"}


def test_no_external_resources_and_user_text_stays_data() -> None:
    graph = _graph()
    page = render_graph_html(graph.entities, graph.relations)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", page, re.I)
    assert "http://" not in page and "https://" not in page
    assert page.count("</script>") == 2  # only the two real script elements close
    assert "<b>bold</b>" not in page and "\u2028" not in page
    assert '</script><script>alert("x")</script>' in [n["name"] for n in _data(page)["nodes"]]


def test_large_graphs_show_the_best_connected() -> None:
    entities = [Entity.create(f"Node {i}", EntityType.CONCEPT, namespace=NS) for i in range(30)]
    hub = entities[29]
    relations = [
        Relation(
            id=relation_id(NS, hub.id, "related_to", e.id, "c"),
            source_id=hub.id,
            target_id=e.id,
            predicate="related_to",
            raw_predicate="",
            context="c",
            confidence=0.3,
            chunk_id="c",
            namespace=NS,
        )
        for e in entities[20:29]
    ]
    data = _data(render_graph_html(entities, relations, max_nodes=10))
    assert len(data["nodes"]) == 10 and data["total_nodes"] == 30
    assert "Node 29" in {n["name"] for n in data["nodes"]}
    with pytest.raises(ValueError):
        render_graph_html(entities, relations, max_nodes=0)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_page_loads_in_headless_chromium(tmp_path: Path) -> None:
    graph = _graph()
    page = tmp_path / "graph.html"
    page.write_text(render_graph_html(graph.entities, graph.relations), encoding="utf-8")
    profile = tmp_path / "profile"
    result = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert '<span id="render-status">ok</span>' in dom, dom[:2000]
    assert '<span id="render-errors"></span>' in dom
    assert '<span id="node-count">4</span>' in dom
    console = [
        line for line in result.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line
    ]
    assert not console, console
    shutil.rmtree(profile, ignore_errors=True)
