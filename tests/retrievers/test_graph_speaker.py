"""GRAPH_COMPLETION's speaker boost: a question naming a person lifts the turns
that person says, not the turns that merely address them by name."""

from __future__ import annotations

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.hits import ChunkHit
from retrievers.graph_completion import GraphCompletionRetriever
from tests.retrievers.graph_fixtures import make_ctx

TURNS = [
    ("D1:1", "Bob", "Ann, I went sailing on the lake last weekend, the weather was perfect."),
    ("D1:2", "Ann", "Nice! I spent my weekend at the pottery studio making bowls."),
    ("D1:3", "Bob", "Ann, do you still go to the pottery studio every weekend?"),
    ("D1:4", "Ann", "Yes, and I also started running in the park."),
]
QUERY = "What does Ann do on weekends?"


async def remember_chat(engine) -> None:
    messages = [
        Message(id=i, speaker=who, text=text, timestamp="2023-05-08T13:56:00")
        for i, who, text in TURNS
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")


async def _chunks(engine, **config) -> dict[str, ChunkHit]:
    ctx = await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=10, **config)
    out = await GraphCompletionRetriever().retrieve(QUERY, ctx)
    return {h.chunk_id: h for h in out.hits if isinstance(h, ChunkHit)}


async def test_turns_said_by_the_named_person_score_one_plus_boost_times_more(engine):
    await remember_chat(engine)
    off = await _chunks(engine, speaker_boost=0.0)
    on = await _chunks(engine, speaker_boost=0.5)
    assert set(on) == set(off) and off
    for chunk_id, hit in on.items():
        expected = 1.5 if hit.speaker == "Ann" else 1.0
        assert hit.score == pytest.approx(expected * off[chunk_id].score, rel=1e-4)
    assert {h.speaker for h in on.values()} == {"Ann", "Bob"}


async def test_the_boost_needs_the_speaker_named(engine):
    """A question that names nobody who speaks leaves every score as it was."""
    await remember_chat(engine)
    query = "Who went sailing on the lake?"
    scores = []
    for boost in (0.0, 0.5):
        ctx = await make_ctx(engine, GraphCompletionRetriever, query, top_k=10, speaker_boost=boost)
        out = await GraphCompletionRetriever().retrieve(query, ctx)
        scores.append([(h.key, h.score) for h in out.hits])
    assert scores[0] == scores[1]


async def test_a_named_speaker_gets_no_mention_bonus(engine):
    """The turns addressing Ann by name are not lifted by the flat mention bonus: Ann
    speaks here, so she is linked through her own turns only."""
    await remember_chat(engine)
    off = await _chunks(engine, speaker_boost=0.0, entity_weight=0.0)
    flat = await _chunks(engine, speaker_boost=0.0, entity_weight=0.4)
    assert {c: h.score for c, h in flat.items()} == {c: h.score for c, h in off.items()}
