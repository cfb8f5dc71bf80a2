"""The self-contained HTML view: structure, escaping, and a real browser load."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.graph import relation_id
from recall_engine.graph import Entity, EntityType, GraphExtraction, Relation, render_graph_html
from recall_engine.graph.visualize import DEFAULT_MAX_NODES

CHROMIUM = Path("/usr/bin/chromium")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
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


def _relation(source: Entity, target: Entity, chunk: str = "c") -> Relation:
    return Relation(
        id=relation_id(NS, source.id, "related_to", target.id, chunk),
        source_id=source.id,
        target_id=target.id,
        predicate="related_to",
        raw_predicate="",
        context="c",
        confidence=0.3,
        chunk_id=chunk,
        namespace=NS,
        time_text="last week",
    )


def test_nodes_arrive_laid_out_and_dates_start_hidden() -> None:
    graph = _graph()
    day = Entity.create("2023-05-08", EntityType.DATE, namespace=NS, identifier="2023-05-08")
    data = _data(render_graph_html([*graph.entities, day], graph.relations))
    assert data["hidden"] == ["DATE"]
    assert all(0 <= n["x"] <= 1 and 0 <= n["y"] <= 1 for n in data["nodes"])
    assert len({(n["x"], n["y"]) for n in data["nodes"]}) == len(data["nodes"])
    assert 0 < data["edge_length"] <= 1
    shown = _data(render_graph_html([*graph.entities, day], graph.relations, hidden_types=()))
    assert shown["hidden"] == []
    with pytest.raises(ValueError, match="EntityType"):
        render_graph_html(graph.entities, graph.relations, hidden_types=["DATE"])  # type: ignore[list-item]


def test_a_sample_says_so_and_hidden_kinds_give_way() -> None:
    people = [Entity.create(f"Person {i}", EntityType.PERSON, namespace=NS) for i in range(6)]
    days = [
        Entity.create(f"2024-01-0{i + 1}", EntityType.DATE, namespace=NS, identifier=str(i))
        for i in range(4)
    ]
    # The dates are the best-connected, yet hidden when the page opens: people first.
    relations = [_relation(d, p, f"c{i}") for d in days for i, p in enumerate(people[:3])]
    page = render_graph_html([*people, *days], relations, max_nodes=7)
    data = _data(page)
    assert {n["name"] for n in data["nodes"]} >= {p.name for p in people}
    assert "showing the 7 best-connected of 10 entities" in page
    assert '<span id="sampled"></span>' in render_graph_html(people, [])
    assert data["edges"][0]["time"] == "last week"


@pytest.mark.slow  # about 4 s: 100k entities built, 1,500 laid out
def test_a_hundred_thousand_entities_become_a_page_of_the_default_size() -> None:
    entities = [
        Entity.create(f"Node {i}", EntityType.CONCEPT, namespace=NS) for i in range(100_000)
    ]
    hubs = entities[:40]
    relations = [_relation(hubs[i % 40], e, "c") for i, e in enumerate(entities[40:3000])]
    data = _data(render_graph_html(entities, relations))
    assert len(data["nodes"]) == DEFAULT_MAX_NODES and data["total_nodes"] == 100_000
    assert {h.name for h in hubs} <= {n["name"] for n in data["nodes"]}


async def test_visualize_graph_takes_a_node_limit_and_refuses_a_bad_one(engine, tmp_path) -> None:
    await engine.remember(EXAMPLES, dataset_name="examples")
    page = await engine.visualize_graph(tmp_path / "two.html", max_nodes=2)
    text = page.read_text(encoding="utf-8")
    assert len(_data(text)["nodes"]) == 2 and "showing the 2 best-connected of" in text
    for bad in (0, True, 2.5, "10"):
        with pytest.raises(InvalidInputError, match="max_nodes"):
            await engine.visualize_graph(tmp_path / "bad.html", max_nodes=bad)
    assert not (tmp_path / "bad.html").exists()


def _chromium(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Debian's headless Chromium on a local page, offline, with a throwaway profile."""
    return subprocess.run(
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
            "--virtual-time-budget=3000",
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_page_loads_in_headless_chromium(tmp_path: Path) -> None:
    graph = _graph()
    page = tmp_path / "graph.html"
    page.write_text(render_graph_html(graph.entities, graph.relations), encoding="utf-8")
    result = _chromium(page, tmp_path / "profile", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert '<span id="render-status">ok</span>' in dom, dom[:2000]
    assert '<span id="render-errors"></span>' in dom
    assert '<span id="node-count">4</span>' in dom
    assert not _console_errors(result.stderr)
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)


FIRST = (
    "Ann",
    "Omar",
    "Lena",
    "Kofi",
    "Mira",
    "Tomas",
    "Ines",
    "Ravi",
    "Sofia",
    "Yusuf",
    "Hana",
    "Ivo",
)
LAST = ("Becker", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Novak")
ORGS = ("Acme Labs", "Birch Systems", "Cobalt Foundation", "Ember Studios", "Granite Bank")
CITIES = ("Lyon", "Oslo", "Lisbon", "Nairobi", "Seoul", "Toronto", "Vienna", "Dublin")


def _generated_conversation() -> Conversation:
    """72 people, each met once, with an employer and a home town: about 80 entities
    in one connected tangle, on top of examples/data's small pieces."""
    start = datetime(2024, 1, 8, 9, 0)
    people = [f"{first} {last}" for last in LAST for first in FIRST]
    return Conversation(
        messages=[
            Message(
                id=f"G{i}",
                speaker="Ada" if i % 2 else "Charles",
                text=f"I met {person}, who works for {ORGS[i % len(ORGS)]} and lives in "
                f"{CITIES[(i // 2) % len(CITIES)]}.",
                timestamp=start + timedelta(days=i),
            )
            for i, person in enumerate(people)
        ]
    )


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
async def test_a_hundred_node_graph_opens_inside_the_viewport(engine, tmp_path: Path) -> None:
    await engine.remember(EXAMPLES, dataset_name="examples")
    await engine.remember(_generated_conversation(), dataset_name="chat")
    page = await engine.visualize_graph(tmp_path / "graph.html")
    assert len(_data(page.read_text(encoding="utf-8"))["nodes"]) >= 100
    result = _chromium(page, tmp_path / "profile", "--window-size=1400,1000", "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    assert '<span id="render-status">ok</span>' in result.stdout
    assert not _console_errors(result.stderr)
    dump = re.search(r'<pre id="layout-dump">(.*?)</pre>', result.stdout, re.S)
    assert dump is not None
    laid = json.loads(html.unescape(dump.group(1)))
    width, height = laid["viewport"]
    assert width == 1400 and height > 700  # the window, less what the browser keeps
    drawn = laid["nodes"]
    inside = [(x, y) for x, y in drawn if 0 <= x <= width and 0 <= y <= height]
    assert len(drawn) >= 100
    assert len(inside) >= 0.9 * len(drawn), (len(inside), len(drawn))
    shutil.rmtree(tmp_path / "profile", ignore_errors=True)
