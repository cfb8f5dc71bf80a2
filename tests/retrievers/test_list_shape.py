"""A list question's ranking is spread over sessions (``retrievers.list_shape``): each
further chunk of a session already chosen counts less, so the items stated on other
days are not crowded out by the one day on the topic."""

from __future__ import annotations

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.core.hits import ChunkHit
from retrievers.graph_steps import ChunkRanking
from retrievers.list_shape import SESSION_DECAY, list_shaped, spread_sessions


def _hit(chunk_id: str, data_id: str, timestamp: str | None) -> ChunkHit:
    return ChunkHit(
        score=0.0,
        chunk_id=chunk_id,
        data_id=data_id,
        chunk_index=0,
        text=chunk_id,
        document_name=data_id,
        timestamp=timestamp,
    )


def _ranking(rows: list[tuple[str, str, str | None, float]]) -> ChunkRanking:
    return ChunkRanking(
        chunk_of={c: _hit(c, d, t) for c, d, t, _ in rows},
        chunk_score={c: s for c, _, _, s in rows},
        ranked=[c for c, *_ in rows],
        linked=set(),
        refs={},
    )


def test_a_further_chunk_of_a_chosen_session_counts_less():
    ranking = _ranking(
        [
            ("a1", "chat", "2023-05-08T13:00:00", 1.0),
            ("a2", "chat", "2023-05-08T13:05:00", 0.95),
            ("a3", "chat", "2023-05-08T13:09:00", 0.9),
            ("b1", "chat", "2023-06-20T09:00:00", 0.84),  # another day of the same chat
        ]
    )
    assert 0.95 * SESSION_DECAY < 0.84  # the case this test is about
    moved = spread_sessions(ranking)
    assert ranking.ranked == ["a1", "b1", "a2", "a3"] and moved == 3
    # the window's scores, in the new order: still falling down the ranking
    assert [ranking.chunk_score[c] for c in ranking.ranked] == [1.0, 0.95, 0.9, 0.84]


def test_far_weaker_chunks_keep_their_place_and_documents_are_sessions():
    same_day = _ranking(
        [
            ("a1", "chat", "2023-05-08T13:00:00", 1.0),
            ("a2", "chat", "2023-05-08T13:05:00", 0.95),
            ("b1", "chat", "2023-06-20T09:00:00", 0.2),
        ]
    )
    assert spread_sessions(same_day) == 0 and same_day.ranked == ["a1", "a2", "b1"]
    documents = _ranking(
        [("p1", "doc1", None, 1.0), ("p2", "doc1", None, 0.9), ("q1", "doc2", None, 0.8)]
    )
    spread_sessions(documents)
    assert documents.ranked == ["p1", "q1", "p2"]


def test_list_questions_are_told_from_other_questions():
    assert list_shaped("What activities does Ann do?")
    assert list_shaped("Which cities has Ann visited?")
    assert not list_shaped("What did Ann paint last week?")


async def test_the_graph_search_spreads_list_questions_only(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    days = ["2023-05-08", "2023-05-08", "2023-06-20", "2023-07-02"]
    texts = ["I paint on Sundays.", "I paint with oils.", "I started pottery.", "I go hiking now."]
    messages = [
        Message(id=f"D{i}", speaker="Ann", text=text, timestamp=f"{day}T10:0{i}:00")
        for i, (day, text) in enumerate(zip(days, texts, strict=True))
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")

    async def details(question: str) -> dict[str, object]:
        results = await engine.recall(
            question, "GRAPH_COMPLETION", datasets=["chat"], only_context=True, verbose=True
        )
        retrieval = results[0].metadata["retrieval"]
        assert isinstance(retrieval, dict)
        return retrieval

    assert isinstance((await details("What hobbies does Ann have?"))["list_spread"], int)
    assert (await details("What did Ann paint?"))["list_spread"] is None
    engine.close()
