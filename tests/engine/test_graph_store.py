"""remember() builds the knowledge graph in Kuzu and LanceDB; forget() and
re-remembering keep it free of orphans; a restart sees the same graph."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from recall_engine import Document, RecallEngine
from recall_engine.core.errors import StoreError
from recall_engine.storage.graph_reads import aliases_from
from recall_engine.storage.graph_records import GRAPH_TABLES
from recall_engine.testing import DeterministicEmbedder

HISTORY = [
    Document(
        text="Dr. Ada Lovelace worked with Charles Babbage in London. In 1843, Lovelace "
        "published her notes on the Analytical Engine.",
        title="ada",
        source_id="ada",
    ),
    Document(
        text="Ada Lovelace was born in London and married William King in 1835.",
        title="born",
    ),
    Document(
        text="Scholars still read Lovelace's notes today. Grace Hopper worked for Remington "
        "Rand. Steve Jobs founded Apple Computer Company in 1976.",
        title="later",
    ),
]
NO_ENTITIES = Document(text="it was a quiet day and nothing much happened at all.", title="q")


def entities(store) -> dict[str, str]:
    """Entity name -> type."""
    return dict(store.graph.execute("MATCH (e:Entity) RETURN e.name, e.type"))


def triples(store) -> set[tuple[str, str, str]]:
    rows = store.graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name, r.predicate, b.name"
    )
    return {tuple(r) for r in rows}


def graph_counts(store) -> dict[str, int]:
    q = {
        "entities": "MATCH (e:Entity) RETURN count(e)",
        "relations": "MATCH ()-[r:RELATES]->() RETURN count(r)",
        "mentions": "MATCH ()-[m:MENTIONS]->() RETURN count(m)",
        "events": "MATCH (v:Event) RETURN count(v)",
        "summaries": "MATCH (s:Summary) RETURN count(s)",
    }
    out = {k: store.graph.execute(v)[0][0] for k, v in q.items()}
    out.update({f"lance_{t}": store.vectors.graph.count(t) for t in GRAPH_TABLES})
    return out


def assert_no_orphans(store) -> None:
    g = store.graph.execute
    assert (
        g("MATCH (e:Entity) WHERE NOT EXISTS { MATCH (:Chunk)-[:MENTIONS]->(e) } RETURN e.id") == []
    )
    chunks = {r[0] for r in g("MATCH (c:Chunk) RETURN c.id")}
    docs = {r[0] for r in g("MATCH (d:Document) RETURN d.id")}
    assert {r[0] for r in g("MATCH ()-[r:RELATES]->() RETURN r.chunk_id")} <= chunks
    assert {r[0] for r in g("MATCH (v:Event) RETURN v.chunk_id")} <= chunks
    assert {r[0] for r in g("MATCH (s:Summary) RETURN s.data_id")} <= docs
    tables = store.vectors.graph
    for table in ("relations", "events", "summaries"):
        assert tables.column(table, "data_id") <= docs
    assert tables.column("entities", "id") == {r[0] for r in g("MATCH (e:Entity) RETURN e.id")}
    assert len(store.entity_index) == tables.count("entities")
    assert len(store.relation_index) == tables.count("relations")


async def test_remember_writes_entities_relations_with_provenance(engine) -> None:
    stored = await engine.remember(HISTORY, dataset_name="history")
    store = engine.store()
    found = entities(store)
    assert found["Ada Lovelace"] == "PERSON" and found["Charles Babbage"] == "PERSON"
    assert found["London"] == "PLACE" and found["Remington Rand"] == "ORGANIZATION"
    assert {
        ("Ada Lovelace", "worked_with", "Charles Babbage"),
        ("Ada Lovelace", "born_in", "London"),
        ("Grace Hopper", "works_for", "Remington Rand"),
        ("Steve Jobs", "founded", "Apple Computer Company"),
    } <= triples(store)
    # Every relation names the chunk that states it, and that chunk says so.
    rows = store.graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity), (c:Chunk {id: r.chunk_id}) "
        "RETURN a.name, b.name, c.text, r.context"
    )
    assert rows and all(r[3] in r[2] for r in rows)
    assert all(src.split()[-1] in text for src, _, text, _ in rows)
    # Every entity is mentioned by a chunk; types are nodes too.
    assert_no_orphans(store)
    assert store.graph.execute(
        "MATCH (e:Entity {name: 'London'})-[:IS_A]->(t:EntityType) RETURN t.id"
    ) == [["PLACE"]]
    events = store.graph.execute("MATCH (v:Event)-[:EVENT_IN]->(c:Chunk) RETURN v.time, c.id")
    assert any(t.startswith("1835") for t, _ in events)
    summaries = store.graph.execute(
        "MATCH (s:Summary)-[:MADE_FROM]->(d:Document) RETURN d.name, s.method"
    )
    assert sorted(summaries) == [[n, "extractive-lead"] for n in ("ada", "born", "later")]
    assert stored.entity_count == len(found)
    assert stored.relation_count == len(triples(store)) and stored.event_count >= 2
    assert "extract_s" in stored.timings


async def test_counts_are_stable_across_fresh_runs(tmp_path) -> None:
    results = []
    for run in ("a", "b"):
        eng = RecallEngine(tmp_path / run, embedder=DeterministicEmbedder())
        stored = await eng.remember(HISTORY, dataset_name="history")
        store = eng.store()
        results.append(
            (
                (stored.entity_count, stored.relation_count, stored.event_count),
                graph_counts(store),
                sorted(entities(store).items()),
                sorted(triples(store)),
            )
        )
        eng.close()
    assert results[0] == results[1]


async def test_one_entity_for_every_form_of_a_name(engine) -> None:
    await engine.remember(HISTORY, dataset_name="history")
    store = engine.store()
    rows = store.graph.execute(
        "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) WHERE e.normalized_name CONTAINS 'lovelace' "
        "RETURN e.id, e.name, e.aliases, c.data_id, m.surface"
    )
    assert len({r[0] for r in rows}) == 1 and rows[0][1] == "Ada Lovelace"
    assert {"Dr. Ada Lovelace", "Lovelace"} <= set(aliases_from(rows[0][2]))
    assert len({r[3] for r in rows}) == 3  # mentioned by all three documents


async def test_the_same_name_in_two_tenants_or_datasets_is_two_nodes(engine) -> None:
    await engine.remember(HISTORY[1], dataset_name="history")
    await engine.remember(HISTORY[1], dataset_name="other")
    await engine.remember(HISTORY[1], dataset_name="history", tenant_id="acme")
    ada = "MATCH (e:Entity {name: 'Ada Lovelace'}) RETURN e.id, e.namespace"
    mine, theirs = engine.store().graph.execute(ada), engine.store("acme").graph.execute(ada)
    assert len(mine) == 2 and len(theirs) == 1
    assert len({r[0] for r in mine + theirs}) == 3
    assert len({r[1] for r in mine + theirs}) == 3


async def test_forget_leaves_no_orphans_and_keeps_shared_entities(engine) -> None:
    stored = await engine.remember(HISTORY, dataset_name="history")
    store = engine.store()
    await engine.forget(data_id=stored.new_data_ids[0])  # "ada": Babbage only lives there
    found = entities(store)
    assert "Charles Babbage" not in found and "Analytical Engine" not in found
    assert "Ada Lovelace" in found and "London" in found  # still mentioned elsewhere
    assert ("Ada Lovelace", "worked_with", "Charles Babbage") not in triples(store)
    assert ("Ada Lovelace", "born_in", "London") in triples(store)
    assert_no_orphans(store)
    await engine.forget(dataset_name="history")
    assert all(v == 0 for v in graph_counts(store).values())
    assert len(store.entity_index) == 0 and len(store.relation_index) == 0


async def test_a_new_version_replaces_its_graph(engine) -> None:
    await engine.remember(HISTORY, dataset_name="history")
    store = engine.store()
    old_ada = store.graph.execute("MATCH (e:Entity {name: 'Ada Lovelace'}) RETURN e.id")
    changed = Document(
        text="Dr. Ada Lovelace corresponded with Mary Somerville in Paris.",
        title="ada",
        source_id="ada",
    )
    result = await engine.remember(changed, dataset_name="history")
    assert len(result.replaced_data_ids) == 1
    found = entities(store)
    assert "Charles Babbage" not in found and "Mary Somerville" in found
    assert store.graph.execute("MATCH (e:Entity {name: 'Ada Lovelace'}) RETURN e.id") == old_ada
    assert not any("Babbage" in " ".join(t) for t in triples(store))
    assert_no_orphans(store)


async def test_text_without_entities_gives_chunks_and_no_graph(engine) -> None:
    stored = await engine.remember(NO_ENTITIES, dataset_name="quiet")
    assert stored.chunk_count == 1
    assert (stored.entity_count, stored.relation_count, stored.event_count) == (0, 0, 0)
    counts = graph_counts(engine.store())
    assert counts["entities"] == counts["relations"] == counts["events"] == 0
    assert counts["summaries"] == 1  # every item gets its (extractive) summary


async def test_a_failed_commit_leaves_no_graph(engine, monkeypatch) -> None:
    await engine.remember(NO_ENTITIES, dataset_name="history")
    store = engine.store()

    def boom(*args, **kwargs):
        raise StoreError("disk full")

    monkeypatch.setattr(store.graph, "write_ingest", boom)
    with pytest.raises(StoreError):
        await engine.remember(HISTORY, dataset_name="history")
    monkeypatch.undo()
    counts = graph_counts(store)
    assert counts["entities"] == counts["relations"] == counts["lance_entities"] == 0
    assert counts["lance_relations"] == counts["lance_events"] == 0
    assert counts["summaries"] == counts["lance_summaries"] == 1
    assert len(store.entity_index) == 0
    stored = await engine.remember(HISTORY, dataset_name="history")  # and it can be retried
    assert stored.entity_count > 0


async def test_extractor_none_writes_no_graph(tmp_path) -> None:
    eng = RecallEngine(tmp_path, embedder=DeterministicEmbedder(), graph_extractor="none")
    stored = await eng.remember(HISTORY, dataset_name="history")
    assert stored.chunk_count == 3 and stored.entity_count == 0
    assert all(v == 0 for v in graph_counts(eng.store()).values())
    eng.close()


RESTART = textwrap.dedent(
    """
    import asyncio, json, sys
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder

    eng = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
    store = eng.store()
    rows = store.graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name, r.predicate, b.name"
    )
    from recall_engine.read.store_reader import StoreReader

    vec = eng.embedder.embed(["Ada Lovelace"])[0]
    reader = StoreReader(store, list(store.datasets()))
    hits = asyncio.run(reader.nearest_entities(vec, 1))
    print(json.dumps({"triples": sorted(rows), "entities": len(store.entity_index),
                      "relations": len(store.relation_index), "top": hits[0].name}))
    eng.close()
    """
)


async def test_a_restart_sees_the_same_graph(tmp_path) -> None:
    eng = RecallEngine(tmp_path, embedder=DeterministicEmbedder())
    await eng.remember(HISTORY, dataset_name="history")
    store = eng.store()
    expected = sorted(list(t) for t in triples(store))
    n_entities, n_relations = len(store.entity_index), len(store.relation_index)
    eng.close()
    out = subprocess.run(
        [sys.executable, "-c", RESTART, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["triples"] == expected
    assert (seen["entities"], seen["relations"]) == (n_entities, n_relations)
    assert seen["top"] == "Ada Lovelace"


async def test_visualize_graph_shows_every_entity(engine, tmp_path) -> None:
    await engine.remember(HISTORY, dataset_name="history")
    await engine.remember(HISTORY[1], dataset_name="other")
    path = await engine.visualize_graph(tmp_path / "out" / "graph.html")
    page = path.read_text(encoding="utf-8")
    n_all = engine.store().graph.execute("MATCH (e:Entity) RETURN count(e)")[0][0]
    assert re.search(r'id="node-count">(\d+)<', page).group(1) == str(n_all)
    one = await engine.visualize_graph(tmp_path / "one.html", "other")
    n_one = engine.store().graph.execute(
        "MATCH (e:Entity) WHERE e.namespace ENDS WITH $ds RETURN count(e)",
        {"ds": (await engine.list_datasets())["other"]},
    )[0][0]
    assert re.search(r'id="node-count">(\d+)<', one.read_text()).group(1) == str(n_one)
    assert 0 < n_one < n_all


async def test_the_datasets_kept_after_an_ingest_are_the_graphs(engine, monkeypatch) -> None:
    """The tenant's dataset list is carried over each ingest (not read again): after
    writes to new and known datasets it is what the graph holds."""
    await engine.remember("Ada wrote notes.", dataset_name="a")
    store = engine.store()
    assert store.datasets() == store.graph.datasets()
    reads: list[int] = []
    read = store.graph.datasets
    monkeypatch.setattr(store.graph, "datasets", lambda: reads.append(1) or read())
    for name in ("b", "a", "c"):
        await engine.remember(f"Grace met Ada in {name}.", dataset_name=name)
        assert store.datasets() == read()
    assert reads == []
    assert sorted(store.datasets().values()) == ["a", "b", "c"]
