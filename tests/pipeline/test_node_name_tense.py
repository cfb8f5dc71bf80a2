"""node_name keeps the tense stage in the named node sets: the chunks behind current
facts that it adds, and the facts it tells, come from those sets only."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType

QUESTION = "How many cats does Ann have?"
GRAPH_TYPES = [
    SearchType.GRAPH_COMPLETION,
    SearchType.GRAPH_COMPLETION_COT,
    SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
    SearchType.GRAPH_SUMMARY_COMPLETION,
]


@pytest.fixture
async def sets(engine: RecallEngine) -> RecallEngine:
    await engine.remember(
        Document(text="Ann has a cat named Luna.", title="pub"), dataset_name="d", node_set=["pub"]
    )
    await engine.remember(
        Document(text="Ann adopted a cat named Shadow.", title="priv"),
        dataset_name="d",
        node_set=["priv"],
    )
    return engine


@pytest.mark.parametrize("search_type", GRAPH_TYPES)
@pytest.mark.parametrize("only_context", [True, False])
async def test_node_name_keeps_other_sets_out_of_the_tense_stage(
    sets: RecallEngine, search_type: SearchType, only_context: bool
) -> None:
    results = await sets.recall(
        QUESTION, search_type, datasets=["d"], node_name=["pub"], only_context=only_context
    )
    assert results
    for result in results:
        assert "Shadow" not in result.text
        assert all("priv" not in s["document_name"] for s in result.metadata["sources"])
    both = await sets.recall(
        QUESTION, search_type, datasets=["d"], node_name=["pub", "priv"], only_context=True
    )
    assert any("Shadow" in r.text for r in both)  # named, the other set is read
