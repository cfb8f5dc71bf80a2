"""Graph elements found by meaning, a LoCoMo conversation's graph, and the LLM
extractor inside remember() (against a local fake server)."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine
from recall_engine.core.errors import InvalidInputError
from recall_engine.read.store_reader import StoreReader
from recall_engine.testing import DeterministicEmbedder, FakeLLMServer

LOCOMO = Path(__file__).resolve().parents[3] / "shared/bench-data/locomo/locomo_dev.json"

FACTS = [
    Document(text="Grace Hopper worked for Remington Rand in Philadelphia.", title="hopper"),
    Document(text="Steve Jobs founded Apple Computer Company in 1976.", title="jobs"),
    Document(text="Marie Curie was born in Warsaw.", title="curie"),
]


def first_conversation() -> tuple[str, Conversation]:
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo dev data not found at {LOCOMO}")
    sample = json.loads(LOCOMO.read_text())[0]
    conv = sample["conversation"]
    messages, n = [], 1
    while f"session_{n}" in conv:
        stamp = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        for turn in conv[f"session_{n}"]:
            messages.append(
                Message(
                    id=turn["dia_id"], speaker=turn["speaker"], text=turn["text"], timestamp=stamp
                )
            )
        n += 1
    return sample["sample_id"], Conversation(messages=messages, title=sample["sample_id"])


async def test_locomo_conversation_graph(engine) -> None:
    name, conversation = first_conversation()
    stored = await engine.remember(conversation, dataset_name=name)
    store = engine.store()
    speakers = {m.speaker for m in conversation.messages}
    rows = store.graph.execute(
        "MATCH (c:Chunk)-[:MENTIONS]->(e:Entity) WHERE e.name IN $names "
        "RETURN e.name, e.type, count(c)",
        {"names": sorted(speakers)},
    )
    assert {r[0] for r in rows} == speakers
    assert all(r[1] == "PERSON" and r[2] > 20 for r in rows)
    events = store.graph.execute(
        "MATCH (v:Event)-[:EVENT_OF]->(e:Entity) WHERE e.name IN $names RETURN v.time, v.time_text",
        {"names": sorted(speakers)},
    )
    assert events and all(t.startswith("20") for t, _ in events)
    assert any(text for _, text in events)  # some dated by a phrase ("last week"), resolved
    assert stored.entity_count > 20 and stored.relation_count > 20 and stored.event_count > 20


async def test_entity_and_relation_search_by_meaning(tmp_path, onnx_minilm) -> None:
    eng = RecallEngine(tmp_path, embedder=onnx_minilm)
    await eng.remember(FACTS, dataset_name="people")
    await eng.remember(Document(text="Ada Lovelace lived in London."), dataset_name="other")
    store = eng.store()
    scope = [(await eng.list_datasets())["people"]]

    reader = StoreReader(store, scope)

    async def top_entity(query: str) -> str:
        hits = await reader.nearest_entities(onnx_minilm.embed([query])[0], 3)
        assert hits and all(h.sources and h.dataset_id == scope[0] for h in hits)
        return hits[0].name

    assert await top_entity("the computer company") == "Apple Computer Company"
    assert await top_entity("the capital of Poland") == "Warsaw"
    vector = onnx_minilm.embed(["Who was Grace Hopper's employer?"])[0]
    hits = await reader.nearest_triplets(vector, 3)
    assert hits[0].predicate == "works_for" and "Remington Rand" in hits[0].text
    chunk = store.graph.execute("MATCH (c:Chunk {id: $id}) RETURN c.text", {"id": hits[0].chunk_id})
    assert "Grace Hopper" in chunk[0][0]
    everywhere = StoreReader(store, list(store.datasets()))
    london = onnx_minilm.embed(["London"])[0]
    assert (await everywhere.nearest_entities(london, 1))[0].name == "London"
    assert all(h.name != "London" for h in await reader.nearest_entities(london, 9))
    eng.close()


def graph_reply(payload: dict) -> str:
    """A fake LLM that extracts 'X works for Y' from the chunk text it is sent."""
    text = payload["messages"][-1]["content"]
    if "Grace Hopper" in text:
        return json.dumps(
            {
                "nodes": [
                    {"id": "gh", "name": "Grace Hopper", "type": "Person"},
                    {"id": "rr", "name": "Remington Rand", "type": "Company"},
                ],
                "edges": [{"source": "gh", "target": "rr", "predicate": "works for"}],
            }
        )
    return "this is not json"


async def test_llm_extractor_in_remember(tmp_path, caplog) -> None:
    with FakeLLMServer(default=graph_reply) as server:
        eng = RecallEngine(
            tmp_path,
            embedder=DeterministicEmbedder(),
            graph_extractor="llm",
            llm_model="openai/fake-extractor",
            llm_api_base=server.base_url,
            llm_api_key="test",
        )
        with caplog.at_level(logging.WARNING, logger="recall_engine.graph.llm_extractor"):
            stored = await eng.remember(FACTS[:2], dataset_name="people")
        # Two calls per chunk for the bad one (the retry quotes the error), one for the good.
        assert len(server.requests) == 3
        assert stored.chunk_count == 2 and stored.relation_count == 1
    store = eng.store()
    rows = store.graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.name, a.type, r.predicate, b.type"
    )
    assert rows == [["Grace Hopper", "PERSON", "works_for", "ORGANIZATION"]]
    assert "chunk skipped" in caplog.text
    eng.close()


def test_llm_extractor_needs_an_llm(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("LLM_MODEL", raising=False)
    with pytest.raises(InvalidInputError, match="graph_extractor='llm' needs an LLM"):
        RecallEngine(tmp_path, embedder=DeterministicEmbedder(), graph_extractor="llm")
    monkeypatch.setenv("RECALL_ENGINE_GRAPH_EXTRACTOR", "none")
    assert RecallEngine(tmp_path, embedder=DeterministicEmbedder()).config.graph_extractor == "none"
