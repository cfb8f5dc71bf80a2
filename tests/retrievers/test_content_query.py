"""The graph search's passage lane also searches with what a question asks without
its speakers' names (``retrievers.content_query``); documents and questions that
name no speaker search with the question's vector alone."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from recall_engine import Conversation, Document, Message
from recall_engine.read.store_reader import StoreReader
from retrievers.content_query import content_query, passage_vector, rest_spans
from retrievers.graph_completion import GraphCompletionRetriever
from retrievers.graph_config import GraphSearchConfig
from tests.retrievers.graph_fixtures import make_ctx

SPEAKERS = ("Ann", "Ann Lee", "Bob")


@pytest.mark.parametrize(
    ("question", "rest"),
    [
        ("What does Ann do to relax?", "to relax"),
        ("What is Ann's job?", "job"),
        ("what kinds of music has ann lee played?", "music played"),
        ("When did Bob and Ann go sailing?", "and go sailing"),
        ("Would Bob’s sister like a boat?", "Would sister like a boat"),
        ("How many pets does Bob have?", "pets"),
    ],
)
def test_the_rest_of_a_question_naming_a_speaker(question: str, rest: str) -> None:
    assert content_query(question, SPEAKERS) == rest


@pytest.mark.parametrize(
    ("question", "speakers"),
    [
        ("Where did Annabel live?", SPEAKERS),  # a longer word is not the name
        ("What did the committee decide?", SPEAKERS),
        ("What does Ann do?", ()),  # documents: no speakers
        ("Who is Ann?", SPEAKERS),  # nothing left but question words
    ],
)
def test_no_rest_without_a_speaker_named_or_words_left(question: str, speakers) -> None:
    assert content_query(question, speakers) is None


class _Read:
    def __init__(self, speakers: frozenset[str]) -> None:
        self._speakers = speakers

    async def speakers(self) -> frozenset[str]:
        return self._speakers


async def test_the_lane_vector_is_the_unit_sum_of_the_question_and_its_rest() -> None:
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    rest = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    asked: list[str] = []

    async def embed_part(text: str, spans) -> np.ndarray:
        asked.append(" ".join(text[a:b] for a, b in spans))
        return rest

    got = await passage_vector(
        "What does Ann cook?", question, GraphSearchConfig(), _Read(frozenset({"Ann"})), embed_part
    )
    assert asked == ["cook"] and got.rest == "cook"
    np.testing.assert_allclose(got.vector, np.array([1, 1, 0]) / np.sqrt(2), rtol=1e-6)
    same = await passage_vector(
        "What does Cy cook?", question, GraphSearchConfig(), _Read(frozenset({"Ann"})), embed_part
    )
    assert same.vector is question and same.rest is None and asked == ["cook"]


@pytest.mark.parametrize(
    "question",
    ["What does Ann do to relax?", "what kinds of music has ann lee played?", "Ann, who is Bob?"],
)
def test_the_rest_is_a_part_of_the_question_one_range_per_word(question: str) -> None:
    spans = rest_spans(question, SPEAKERS)
    assert spans is not None
    words = [question[a:b] for a, b in spans]
    assert all(w and " " not in w for w in words)
    assert " ".join(words) == content_query(question, SPEAKERS)
    assert [a for a, _ in spans] == sorted(a for a, _ in spans)


TURNS = [
    ("D1:1", "Ann", "I spent the weekend at the pottery studio making bowls."),
    ("D1:2", "Bob", "I went sailing on the lake, the weather was perfect."),
    ("D1:3", "Ann", "Next month I start a watercolour class."),
]


async def test_speakers_of_the_scope_follow_writes(engine) -> None:
    messages = [
        Message(id=i, speaker=s, text=t, timestamp="2023-05-08T13:56:00") for i, s, t in TURNS
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    await engine.remember(
        Document(text="Ann Smith wrote a book.", title="doc"), dataset_name="docs"
    )
    ids = await engine.list_datasets()
    store = engine.store()
    assert await StoreReader(store, [ids["chat"]]).speakers() == {"Ann", "Bob"}
    assert await StoreReader(store, [ids["docs"]]).speakers() == frozenset()
    more = Message(id="D1:4", speaker="Cy", text="Hello both!", timestamp="2023-05-09T10:00:00")
    await engine.remember(Conversation(messages=[more]), dataset_name="chat")
    assert await StoreReader(store, list(ids.values())).speakers() == {"Ann", "Bob", "Cy"}
    await engine.forget(dataset_name="chat")
    assert await StoreReader(store, list(ids.values())).speakers() == frozenset()


async def test_the_graph_search_embeds_the_rest_only_for_a_named_speaker(engine) -> None:
    messages = [
        Message(id=i, speaker=s, text=t, timestamp="2023-05-08T13:56:00") for i, s, t in TURNS
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    cases = (
        ("What does Ann make at the studio?", True, ["make at the studio"]),
        ("Who went sailing on the lake?", True, []),
        ("What does Ann make at the studio?", False, []),
    )
    for query, lane, expected in cases:
        ctx = await make_ctx(engine, GraphCompletionRetriever, query, speaker_free_lane=lane)
        embedded: list[str] = []

        async def spy(text: str, inner=ctx.embed, seen=embedded) -> np.ndarray:
            seen.append(text)
            return await inner(text)

        out = await GraphCompletionRetriever().retrieve(query, replace(ctx, embed=spy))
        assert embedded == expected, (query, lane)
        # the details say what the lane searched with (verbose results show them)
        assert out.details["speaker_free_rest"] == (expected[0] if expected else None)
