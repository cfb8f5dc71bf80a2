"""A query with no content word shares none with the scope: as "x" does, it matches
nothing unless it is close by meaning to a chunk (the documented rule), so recall
returns [] for every type that does not pick its elements itself."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType


@pytest.fixture
async def memory(tmp_path, minilm):
    engine = RecallEngine(tmp_path / "data", embedder=minilm)
    await engine.remember(
        [
            Document(text="Einstein was born in Ulm. He worked in Bern.", title="e"),
            Document(text="The cafeteria serves vegan lunch on Fridays.", title="food"),
        ],
        dataset_name="p",
    )
    yield engine
    engine.close()


@pytest.mark.parametrize("query", ["?", "the of and", "🙂🙂"])
@pytest.mark.parametrize(
    "search_type", [None, SearchType.CHUNKS, SearchType.SUMMARIES, SearchType.RAG_COMPLETION]
)
async def test_a_query_without_content_words_matches_nothing(memory, query, search_type) -> None:
    assert await memory.recall(query, search_type, only_context=True) == []
