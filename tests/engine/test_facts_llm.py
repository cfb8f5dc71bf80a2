"""With the LLM extractor, the model names each fact's aspect, and a later fact of
the same subject and aspect supersedes the earlier one (local fake LLM server,
real litellm)."""

from __future__ import annotations

import json

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.graph.supersession import family_of_aspect
from recall_engine.testing import DeterministicEmbedder, FakeLLMServer

# predicate words the rule families do not know: only the aspect can tie them
STATED = {
    "Lyon": ("calls home", "residence"),
    "Montmartre": ("has settled down in", "home"),
    "nurse": ("earns a living as", "Occupation"),
}


def reply(payload: dict) -> str:
    """Ann -[predicate]-> the place or job the message names, with its aspect."""
    text = payload["messages"][-1]["content"]
    for value, (predicate, aspect) in STATED.items():
        if value in text:
            edge = {"source": "ann", "target": "x", "predicate": predicate, "aspect": aspect}
            nodes = [
                {"id": "ann", "name": "Ann", "type": "Person"},
                {"id": "x", "name": value, "type": "Concept"},
            ]
            return json.dumps({"nodes": nodes, "edges": [edge]})
    return json.dumps({"nodes": [], "edges": []})


async def test_the_llm_aspect_decides_what_supersedes(tmp_path):
    with FakeLLMServer(default=reply) as server:
        engine = RecallEngine(
            tmp_path,
            embedder=DeterministicEmbedder(),
            graph_extractor="llm",
            llm_model="openai/fake-extractor",
            llm_api_base=server.base_url,
            llm_api_key="test",
        )
        try:
            for mid, when, text in [
                ("m1", "2023-01-05T10:00:00", "I live in Lyon."),
                ("m2", "2023-01-05T10:05:00", "I work as a nurse."),
                ("m3", "2024-03-01T09:00:00", "I live in Montmartre now."),
            ]:
                message = Message(id=mid, speaker="Ann", text=text, timestamp=when)
                await engine.remember(Conversation(messages=[message]), dataset_name="ann")
            system = server.requests[0].messages[0]["content"]
            assert '"aspect"' in system
            facts = {f.object: f for f in await engine.facts("Ann")}
        finally:
            engine.close()
    assert facts["Lyon"].family == "home" and not facts["Lyon"].current
    assert [r.object for r in facts["Lyon"].superseded_by] == ["Montmartre"]
    assert facts["Montmartre"].current
    assert facts["nurse"].family == "job" and facts["nurse"].current


def test_family_of_aspect_normalises_the_models_words():
    assert family_of_aspect("Residence") == "home"
    assert family_of_aspect("favorite: food") == "favourite:food"
    assert family_of_aspect("health back pain") == "state:back_pain"
    assert family_of_aspect("shoe size") == "shoe_size"
    assert family_of_aspect("  ") is None and family_of_aspect(None) is None
