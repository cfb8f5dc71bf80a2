"""recall()'s stages are objects in a list that a caller can extend."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_engine import InvalidInputError, RecallEngine, SearchType
from recall_engine.pipeline.stage import stage
from recall_engine.pipeline.state import RecallState

TEXTS = ["Postgres runs billing.", "Billing moved to Postgres in March after a review."]


@pytest.fixture
async def engine(tmp_path: Path, hash_embedder):
    eng = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    await eng.remember(TEXTS, dataset_name="docs")
    yield eng
    eng.close()


async def test_a_stage_inserted_after_retrieve_changes_every_later_recall(engine) -> None:
    seen: list[int] = []

    async def keep_long(state: RecallState) -> None:
        assert state.output is not None
        seen.append(len(state.output.hits))
        state.output.hits = [h for h in state.output.hits if len(h.text) > 30]

    names = [s.name for s in engine.pipeline.stages]
    assert names[:4] == ["scope", "session", "route", "retrieve"] and names[-1] == "tag"
    engine.pipeline.insert_stage(stage("keep_long", keep_long), after="retrieve")
    results = await engine.recall(
        "postgres billing", query_type=SearchType.CHUNKS_LEXICAL, verbose=True
    )
    assert [r.text for r in results] == [TEXTS[1]] and seen == [2]
    assert "keep_long" in results[0].metadata["timings"]
    assert [s.name for s in engine.pipeline.stages].index("keep_long") == names.index(
        "retrieve"
    ) + 1


async def test_a_bad_insert_is_refused_and_changes_nothing(engine) -> None:
    async def noop(state: RecallState) -> None:
        return None

    before = list(engine.pipeline.stages)
    for kwargs, match in [
        ({"after": "nowhere"}, "No stage named 'nowhere'.*retrieve"),
        ({}, "exactly one of"),
        ({"after": "route", "before": "tag"}, "exactly one of"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            engine.pipeline.insert_stage(stage("extra", noop), **kwargs)
    with pytest.raises(InvalidInputError, match="already in the pipeline"):
        engine.pipeline.insert_stage(stage("route", noop), before="tag")
    assert engine.pipeline.stages == before
