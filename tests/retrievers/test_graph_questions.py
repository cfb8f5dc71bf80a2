"""GRAPH_COMPLETION's question demotion: a turn that asks repeats the question's
words but does not answer it, so it scores less by the share of its words that ask,
and what it loses goes to its reply."""

from __future__ import annotations

import pytest

from recall_engine import Conversation, Message
from recall_engine.core.hits import ChunkHit
from recall_engine.read.api import ChunkPlace
from retrievers.graph_completion import GraphCompletionConfig, GraphCompletionRetriever
from retrievers.graph_scoring import asking_share
from retrievers.graph_turns import demote_questions, pass_to_replies
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


def _turn(chunk_id: str, index: int, speaker: str | None, text: str, data_id: str = "chat"):
    return ChunkHit(
        score=0.0,
        chunk_id=chunk_id,
        data_id=data_id,
        chunk_index=index,
        text=text,
        document_name="n",
        speaker=speaker,
    )


class _Turns:
    """A read API that knows only where chunks sit (what pass_to_replies reads)."""

    def __init__(self, hits: list[ChunkHit]) -> None:
        self.hits = hits
        self.asked: list[str] = []  # whose places were read
        self.built: list[str] = []  # the hits built

    def _around(self, chunk_ids, neighbours):
        wanted = {(h.data_id, h.chunk_index) for h in self.hits if h.chunk_id in chunk_ids}
        return [
            h
            for h in self.hits
            if any(h.data_id == d and abs(h.chunk_index - i) <= neighbours for d, i in wanted)
        ]

    async def places_by_id(self, chunk_ids, *, neighbours=0):
        self.asked.extend(chunk_ids)
        return [
            ChunkPlace(h.chunk_id, h.data_id, h.chunk_index, 1.0)
            for h in self._around(chunk_ids, neighbours)
        ]

    async def chunks_by_id(self, chunk_ids, *, neighbours=0):
        found = self._around(chunk_ids, neighbours)
        self.built.extend(h.chunk_id for h in found)
        return found


async def test_what_a_turn_loses_for_asking_goes_to_its_reply():
    turns = [
        _turn("ask", 0, "Bob", "Which trail do you hike?"),
        _turn("reply", 1, "Ann", "The ridge above the mill."),
        _turn("again", 2, "Ann", "Is it steep? Very."),
        _turn("same", 3, "Ann", "It is, in places."),
        _turn("doc-ask", 0, None, "Which trail? The ridge.", data_id="doc"),
        _turn("doc-next", 1, None, "The mill is old.", data_id="doc"),
    ]
    candidates = {h.chunk_id: h for h in turns if h.chunk_id in {"ask", "again", "doc-ask"}}
    scores, lost = demote_questions(dict.fromkeys(candidates, 1.0), candidates, 0.5)
    assert scores == {"ask": 0.5, "again": pytest.approx(1 - 0.5 * 3 / 4), "doc-ask": 0.75}
    read = _Turns(turns)
    out = await pass_to_replies(read, scores, lost, candidates, askers=10)
    # the reply by someone else gains exactly what the question lost, and joins the candidates
    assert out["reply"] == pytest.approx(0.5) and candidates["reply"].chunk_id == "reply"
    # the next turn by the same speaker is no reply; a document's chunk has no speaker
    assert "same" not in out and "doc-next" not in out
    assert {c: out[c] for c in scores} == scores
    assert read.built == ["reply", "same"]  # hits only for next turns not among the candidates
    # only the `askers` turns that lost most lend
    read = _Turns(turns)
    await pass_to_replies(read, scores, lost, candidates, askers=1)
    assert read.asked == ["ask"]


async def test_a_reply_without_the_question_s_words_is_found_through_its_question(engine):
    turns = [
        ("D1:1", "Ann", "Which trail do you hike on weekends, Bob?"),
        ("D1:2", "Bob", "Mostly the ridge above the old mill."),
        ("D1:3", "Ann", "I baked bread on weekends."),
        ("D1:4", "Bob", "My garage needed cleaning on weekends."),
        ("D1:5", "Ann", "Our neighbours hike too."),
    ]
    messages = [
        Message(id=i, speaker=who, text=text, timestamp="2023-05-08T13:56:00")
        for i, who, text in turns
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    query = "Which trail does Bob hike on weekends?"

    async def first(**config) -> tuple[str, ...]:
        ctx = await make_ctx(engine, GraphCompletionRetriever, query, top_k=10, **config)
        out = await GraphCompletionRetriever().retrieve(query, ctx)
        return next(h for h in out.hits if isinstance(h, ChunkHit)).message_ids

    assert GraphCompletionConfig().replies_answer
    assert await first(replies_answer=False) != ("D1:2",)
    assert await first() == ("D1:2",)
