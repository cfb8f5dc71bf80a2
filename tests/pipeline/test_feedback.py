"""add_feedback() and feedback_influence: rated answers move what they used (issue 12)."""

from __future__ import annotations

import pytest

from recall_engine import Document, SearchType
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import ChunkHit
from recall_engine.core.models import SourceRef
from recall_engine.pipeline.feedback import rerank

DOCS = [
    Document(text="Ulm is a city on the Danube with a tall minster.", title="ulm-city"),
    Document(text="Einstein was born in Ulm in 1879.", title="einstein"),
    Document(text="The Ulm minster has the tallest church steeple.", title="minster"),
]


def _hit(name: str, score: float) -> ChunkHit:
    ref = SourceRef(
        data_id=name, chunk_id=name, chunk_index=0, document_name=name, dataset_id="d",
        dataset_name="d",
    )  # fmt: skip
    return ChunkHit(
        score=score, sources=(ref,), chunk_id=name, data_id=name, chunk_index=0, text=name,
        document_name=name,
    )  # fmt: skip


def test_rerank_moves_rated_hits_both_ways_and_zero_changes_nothing():
    hits = [_hit("a", 3.0), _hit("b", 2.0), _hit("c", 1.0)]
    weights = {"chunk:c": 1.0, "chunk:a": -1.0}
    assert [h.chunk_id for h in rerank(hits, weights, 0.0)[0]] == ["a", "b", "c"]
    assert [h.chunk_id for h in rerank(hits, {}, 0.7)[0]] == ["a", "b", "c"]
    ranked, applied = rerank(hits, weights, 0.7)
    assert [h.chunk_id for h in ranked] == ["c", "b", "a"] and applied == {"0": -1.0, "2": 1.0}
    assert [h.chunk_id for h in rerank(hits, weights, 0.3)[0]] == ["a", "b", "c"]  # too weak


async def _rated(engine, question: str, score: int) -> None:
    (answer,) = await engine.recall(question, SearchType.RAG_COMPLETION, session_id="fb", top_k=1)
    entry = await engine.add_feedback("fb", answer.metadata["qa_id"], score=score, text="ok")
    assert (entry.feedback_score, entry.feedback_text) == (score, "ok")


async def _order(engine, influence: float) -> list[str]:
    results = await engine.recall(
        "Ulm minster", SearchType.CHUNKS_LEXICAL, feedback_influence=influence, top_k=3
    )
    return [r.metadata["document_name"] for r in results]


async def test_well_rated_answers_lift_what_they_used(engine):
    await engine.remember(DOCS, dataset_name="ulm")
    before = await _order(engine, 0.0)
    assert before[-1] == "einstein"
    await _rated(engine, "Where was Einstein born?", 5)
    after = await _order(engine, 0.8)
    assert after[0] == "einstein"
    assert await _order(engine, 0.0) == before  # no influence, no change


async def test_badly_rated_answers_push_down_what_they_used(engine):
    await engine.remember(DOCS, dataset_name="ulm")
    before = await _order(engine, 0.0)
    top = before[0]
    question = {"minster": "Which church has the tallest steeple?", "ulm-city": "Which city "
                "lies on the Danube?"}[top]  # fmt: skip
    await _rated(engine, question, 1)
    after = await _order(engine, 0.8)
    assert after[-1] == top and after[0] != top


async def test_feedback_is_checked(engine):
    await engine.remember(DOCS, dataset_name="ulm")
    (answer,) = await engine.recall("Where was Einstein born?", SearchType.RAG_COMPLETION,
                                    session_id="fb")  # fmt: skip
    qa_id = answer.metadata["qa_id"]
    for bad in (0, 6, 2.5, True):
        with pytest.raises(InvalidInputError, match="score"):
            await engine.add_feedback("fb", qa_id, score=bad)
    with pytest.raises(InvalidInputError, match="No entry"):
        await engine.add_feedback("other-session", qa_id, score=4)
    await engine.add_feedback("fb", qa_id, score=1)
    await engine.add_feedback("fb", qa_id, score=5)  # a new rating replaces the old one
    (hit,) = await engine.recall("where was Einstein born", session_id="fb")
    assert hit.feedback_score == 5
    element = next(iter(engine.sessions.entries("default", (await engine.users())[0].id, "fb")))
    weights = engine.sessions.element_weights("default", element.element_ids)
    assert set(weights.values()) == {1.0}
