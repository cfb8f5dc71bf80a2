"""recall() with ``as_of`` or ``metadata_filters``: the entity lanes of HYBRID_COMPLETION
and GRAPH_COMPLETION hold no entity stated only where the caller may not look (another
team's notes) or later than ``as_of``, and cite no such chunk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType

ALLOWED_TEXT = "Ada Lovelace works at Acme Corp in Boston."
EXCLUDED_TEXT = "Ada Lovelace founded Zenith Labs with Boris Vance in Oslo."
HIDDEN = ("Zenith", "Boris", "Oslo")  # stated only in the excluded chunk
QUESTIONS = ["Who is Ada Lovelace?", "Did Ada Lovelace found Zenith Labs with Boris Vance?"]

# (dataset, the option that excludes EXCLUDED_TEXT)
NARROWINGS: dict[str, tuple[str, dict[str, Any]]] = {
    "as_of": ("chat", {"as_of": "2024-01-01"}),
    "metadata_filters": ("docs", {"metadata_filters": {"team": "a"}}),
}


async def _fill(engine: RecallEngine) -> None:
    messages = [
        Message(id="m0", speaker="Ann", text=ALLOWED_TEXT, timestamp=datetime(2023, 3, 1)),
        Message(id="m1", speaker="Ann", text=EXCLUDED_TEXT, timestamp=datetime(2025, 3, 1)),
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    await engine.remember(
        [
            Document(text=ALLOWED_TEXT, title="alpha", metadata={"team": "a"}),
            Document(text=EXCLUDED_TEXT, title="beta", metadata={"team": "b"}),
        ],
        dataset_name="docs",
    )


@pytest.fixture
async def ada(tmp_path, hash_embedder, prebuilt) -> AsyncIterator[RecallEngine]:
    engine = RecallEngine(prebuilt(_fill, tmp_path / "data"), embedder=hash_embedder)
    yield engine
    engine.close()


def _leaks(results) -> list[str]:
    """What of the excluded chunk the results show: its words, its message, its item."""
    found = []
    for r in results:
        shown = f"{r.text} {r.raw}"
        found += [word for word in HIDDEN if word in shown]
        for source in r.metadata.get("sources", []):
            if "m1" in (source.get("message_ids") or []) or source.get("document_name") == "beta":
                found.append(f"source {source}")
    return found


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("narrowing", list(NARROWINGS))
async def test_hybrid_entities_hold_nothing_of_the_excluded_chunk(ada, narrowing, question):
    dataset, option = NARROWINGS[narrowing]
    results = await ada.recall(
        question, SearchType.HYBRID_COMPLETION, datasets=[dataset], only_context=True, **option
    )
    assert results and _leaks(results) == []
    # nothing was left to drop after the search: the context keeps its lanes' layout
    assert "Relevant entities:" in results[0].text


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("narrowing", list(NARROWINGS))
async def test_graph_entity_lane_holds_nothing_of_the_excluded_chunk(ada, narrowing, question):
    dataset, option = NARROWINGS[narrowing]

    async def entity_lane(**narrowed: Any) -> tuple[list, int]:
        results = await ada.recall(
            question,
            SearchType.GRAPH_COMPLETION,
            datasets=[dataset],
            only_context=True,
            verbose=True,
            **narrowed,
        )
        return results, results[0].metadata["retrieval"]["lanes"]["entities"]

    _, every = await entity_lane()
    results, narrowed = await entity_lane(**option)
    assert _leaks(results) == []
    assert narrowed <= every - len(HIDDEN)  # the hidden entities are no candidates
