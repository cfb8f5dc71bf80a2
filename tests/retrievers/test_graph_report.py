"""GRAPH_REPORT: hubs, communities with what they are about, questions; cached per snapshot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import pytest

from recall_engine import Conversation, Message, RecallEngine

TURNS = [
    ("Ann", "I moved to Lyon with Tom last spring."),
    ("Ann", "Tom works at Renault in Lyon."),
    ("Ann", "Tom and I visited Paris and Rome."),
    ("Bob", "My sister Clara lives in Oslo."),
    ("Bob", "Clara teaches at the university in Oslo with Erik."),
    ("Bob", "Erik and Clara hiked in Bergen and Tromso."),
]


async def _fill(engine: RecallEngine) -> None:
    messages = [
        Message(id=f"t{i}", speaker=s, text=text, timestamp=datetime(2024, 1, i + 1))
        for i, (s, text) in enumerate(TURNS)
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")


@pytest.fixture
async def chat(tmp_path, hash_embedder, prebuilt) -> AsyncIterator[RecallEngine]:
    """A fresh copy per test of the chat (ingested once per session)."""
    engine = RecallEngine(prebuilt(_fill, tmp_path / "data"), embedder=hash_embedder)
    yield engine
    engine.close()


async def _report(engine: RecallEngine) -> tuple[dict, str]:
    results = await engine.recall(
        "What is this about?", query_type="GRAPH_REPORT", datasets=["chat"]
    )
    assert len(results) == 1 and results[0].search_type == "GRAPH_REPORT"
    return results[0].metadata["graph_report"], results[0].text


async def test_the_report_names_hubs_and_separate_communities(chat: RecallEngine) -> None:
    report, text = await _report(chat)
    hubs = [h["name"] for h in report["hubs"]]
    assert hubs[0] in {"Ann", "Tom", "Clara", "Bob"}
    groups = [set(c["members"]) for c in report["communities"]]
    assert len(groups) >= 2
    # the two friends' circles do not share a community
    assert not any({"Tom", "Clara"} <= g or {"Lyon", "Oslo"} <= g for g in groups)
    assert text.startswith(f"Graph of {report['entities']} entities")
    assert "Suggested questions:" in text and report["questions"]
    assert all(c["chunk_id"] for c in report["communities"])


async def test_a_report_is_reused_until_the_graph_changes(chat: RecallEngine) -> None:
    first, _ = await _report(chat)
    again, _ = await _report(chat)
    assert not first["cached"] and again["cached"]
    await chat.remember(
        Conversation(messages=[Message(id="t9", speaker="Ann", text="Tom and I moved to Nantes.")]),
        dataset_name="chat",
    )
    fresh, _ = await _report(chat)
    assert not fresh["cached"] and fresh["relations"] > first["relations"]


async def test_the_router_sends_an_overview_to_the_report(chat: RecallEngine) -> None:
    results = await chat.recall("What are the main topics?", datasets=["chat"])
    assert results[0].metadata["route"]["search_type"] == "GRAPH_REPORT"
    assert results[0].metadata["answer_mode"] == "extractive"


async def test_only_context_lists_communities_then_hubs(chat: RecallEngine) -> None:
    results = await chat.recall(
        "overview", query_type="GRAPH_REPORT", datasets=["chat"], only_context=True
    )
    assert len(results) == 1 and "Community 1" in results[0].text
    assert results[0].metadata["sources"] and results[0].metadata["sources"][0]["message_ids"]
