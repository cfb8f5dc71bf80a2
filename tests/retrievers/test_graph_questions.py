"""GRAPH_COMPLETION's question demotion: a turn that asks repeats the question's
words but does not answer it, so it scores less by the share of its words that ask."""

from __future__ import annotations

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.hits import ChunkHit
from retrievers.graph_completion import GraphCompletionConfig, GraphCompletionRetriever
from retrievers.graph_scoring import asking_share
from tests.retrievers.graph_fixtures import make_ctx

TURNS = [
    ("D1:1", "Bob", "Hey Ann! Which trail do you hike on weekends? Is hiking fun?"),
    ("D1:2", "Ann", "On weekends I hike the ridge trail above the old mill."),
    ("D1:3", "Bob", "I baked bread and cleaned the garage."),
]
QUERY = "Which trail does Ann hike on weekends?"


def test_asking_share_counts_the_words_of_sentences_that_ask():
    assert asking_share("Nice. Where did you go?") == pytest.approx(4 / 5)
    assert asking_share("I went to Lyon. [shares a photo of a bridge?]") == 0.0
    assert asking_share("Was it fun? Did you swim?") == 1.0
    assert asking_share("") == 0.0


async def _ranked(engine, **config) -> list[ChunkHit]:
    ctx = await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=10, **config)
    out = await GraphCompletionRetriever().retrieve(QUERY, ctx)
    return [h for h in out.hits if isinstance(h, ChunkHit)]


async def test_the_answering_turn_outranks_the_turn_that_asks(engine):
    messages = [
        Message(id=i, speaker=who, text=text, timestamp="2023-05-08T13:56:00")
        for i, who, text in TURNS
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    assert GraphCompletionConfig().question_weight > 0
    plain = await _ranked(engine, question_weight=0.0)
    assert plain[0].message_ids == ("D1:1",)  # the echo of the question wins without it
    ranked = await _ranked(engine)
    assert ranked[0].message_ids == ("D1:2",)
    assert {h.chunk_id for h in ranked} == {h.chunk_id for h in plain}
