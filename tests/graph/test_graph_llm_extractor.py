"""Parsing and converting an LLM's structured graph output."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from recall_engine.core.errors import LLMResponseError
from recall_engine.graph import ChunkInput, EntityType
from recall_engine.graph.llm_extractor import (
    LLMGraph,
    entity_type_of,
    llm_graph_to_extraction,
    parse_llm_graph,
)

CHUNK = ChunkInput(
    chunk_id="D1:3",
    text="I moved to Lyon yesterday to join Acme Corp.",
    speaker="Ann",
    timestamp=datetime(2023, 5, 8, 13, 56),
    dataset_id="chat",
)
REPLY = {
    "nodes": [
        {"id": "n1", "name": "Ann", "type": "Person"},
        {"id": "n2", "name": "Lyon", "type": "Location", "description": "A city in France"},
        {"id": "n3", "name": "Acme Corp", "type": "COMPANY", "aliases": ["Acme"]},
        {"id": "n4", "name": "  ", "type": "Person"},
    ],
    "edges": [
        {
            "source": "n1",
            "target": "n2",
            "predicate": "moved to",
            "time": "yesterday",
            "description": "Ann moved to Lyon on 7 May 2023.",
        },
        {"source": "n1", "target": "Acme Corp", "predicate": "works at", "confidence": 0.9},
        {"source": "n1", "target": "n9", "predicate": "knows"},
        {"source": "n2", "target": "n3", "predicate": "Is Home Of"},
    ],
}


def test_parse_accepts_fenced_json_and_dicts() -> None:
    assert parse_llm_graph("```json\n" + json.dumps(REPLY) + "\n```") == parse_llm_graph(REPLY)
    assert parse_llm_graph('{"nodes": [], "edges": [], "extra": 1}') == LLMGraph()


@pytest.mark.parametrize(
    "reply", ["not json", "[1, 2]", '{"nodes": [{"name": "x"}]}', '{"edges": [{"source": 1}]}']
)
def test_parse_rejects_bad_output(reply: str) -> None:
    with pytest.raises(LLMResponseError):
        parse_llm_graph(reply)


def test_types_map_to_ours() -> None:
    assert entity_type_of("Location") is EntityType.PLACE
    assert entity_type_of("work of art") is EntityType.WORK
    assert entity_type_of("gizmo") is EntityType.CONCEPT


def test_converts_to_a_chunk_extraction() -> None:
    extraction = llm_graph_to_extraction(parse_llm_graph(REPLY), CHUNK)
    names = {e.id: e.name for e in extraction.entities}
    assert sorted(names.values()) == ["Acme Corp", "Ann", "Lyon"]  # blank node dropped
    types = {e.name: e.type for e in extraction.entities}
    assert types == {
        "Ann": EntityType.PERSON,
        "Lyon": EntityType.PLACE,
        "Acme Corp": EntityType.ORGANIZATION,
    }
    triples = {(names[r.source_id], r.predicate, names[r.target_id]) for r in extraction.relations}
    assert triples == {
        ("Ann", "moved_to", "Lyon"),
        ("Ann", "works_for", "Acme Corp"),
        ("Lyon", "is_home_of", "Acme Corp"),
    }
    moved = next(r for r in extraction.relations if r.predicate == "moved_to")
    assert moved.raw_predicate == "moved to" and moved.time_text == "yesterday"
    assert moved.timestamp == datetime(2023, 5, 7) and moved.context.startswith("Ann moved to Lyon")
    assert all(r.chunk_id == "D1:3" and r.namespace == "chat" for r in extraction.relations)
    assert [e.time for e in extraction.events] == [datetime(2023, 5, 7)]
    lyon = next(m for m in extraction.mentions if names[m.entity_id] == "Lyon")
    assert CHUNK.text[lyon.start : lyon.end] == "Lyon"
    assert {m.entity_id for m in extraction.mentions} == set(names)
