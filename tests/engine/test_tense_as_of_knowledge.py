"""As of a time, recall knows only what was stated by then: a fact replaced later is
told as it held then (current, no end, no replacement), and the whole-scope types
(BROAD, GRAPH_REPORT) count and report only what was stated by then."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType

AS_OF = "2024-06-01"
TURNS = [
    ("I moved to Lyon.", datetime(2023, 3, 1)),
    ("I adopted a cat named Luna.", datetime(2023, 4, 1)),
    ("I moved to Paris.", datetime(2024, 1, 1)),
    ("I got a puppy called Max.", datetime(2024, 2, 1)),
    ("I moved to Oslo.", datetime(2025, 6, 1)),
    ("My aunt gave me a parrot named Kiwi.", datetime(2025, 7, 1)),
]


async def _fill(engine: RecallEngine) -> None:
    messages = [
        Message(id=f"m{i}", speaker="Ann", text=text, timestamp=ts)
        for i, (text, ts) in enumerate(TURNS)
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")


@pytest.fixture
async def ann(tmp_path, hash_embedder, prebuilt) -> AsyncIterator[RecallEngine]:
    engine = RecallEngine(prebuilt(_fill, tmp_path / "data"), embedder=hash_embedder)
    yield engine
    engine.close()


@pytest.mark.parametrize("search_type", [SearchType.GRAPH_COMPLETION, SearchType.CHUNKS])
async def test_a_fact_replaced_later_is_told_as_it_held_then(ann, search_type) -> None:
    results = await ann.recall(
        "Where does Ann live?", search_type, datasets=["chat"], as_of=AS_OF, only_context=True
    )
    shown = "\n".join(r.text for r in results)
    described = [f for r in results for f in r.metadata.get("facts", [])]
    assert "Oslo" not in shown
    assert all("Oslo" not in f["fact"] and "2025" not in f["fact"] for f in described)
    if search_type == SearchType.CHUNKS:  # each chunk result lists the facts it states
        paris = [f for f in described if f["fact"].startswith("Ann moved_to Paris")]
        assert paris and all(f["current"] and f["valid_until"] is None for f in paris)
    else:  # the context's facts block: what was replaced by then stays told
        assert "[current] Ann moved_to Paris (from 2024-01-01; current)" in shown
        assert "[superseded] Ann moved_to Lyon (from 2023-03-01; until 2024-01-01" in shown


async def test_broad_counts_only_what_was_stated_by_as_of(ann) -> None:
    (then,) = await ann.recall("How many pets does Ann have?", datasets=["chat"], as_of=AS_OF)
    assert then.search_type == SearchType.BROAD
    assert then.text.startswith("2 pets: Luna and Max."), then.text
    (now,) = await ann.recall("How many pets does Ann have?", datasets=["chat"])
    assert now.text.startswith("3 pets: Luna, Max and Kiwi.")


async def test_broad_context_as_of_holds_nothing_stated_later(ann) -> None:
    (context,) = await ann.recall(
        "How many pets does Ann have?", datasets=["chat"], as_of=AS_OF, only_context=True
    )
    assert "Kiwi" not in context.text and "Oslo" not in context.text
    cited = {m for s in context.metadata["sources"] for m in s["message_ids"]}
    assert not cited & {"m4", "m5"}


async def test_the_graph_report_as_of_holds_nothing_stated_later(ann) -> None:
    (report,) = await ann.recall(
        "What is this about?",
        SearchType.GRAPH_REPORT,
        datasets=["chat"],
        as_of=AS_OF,
        only_context=True,
    )
    assert "Kiwi" not in report.text and "Oslo" not in report.text
    (now,) = await ann.recall(
        "What is this about?", SearchType.GRAPH_REPORT, datasets=["chat"], only_context=True
    )
    assert "Kiwi" in now.text
