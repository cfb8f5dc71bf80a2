"""Per-request budgets in Python: the most text per remembered item and per query."""

from __future__ import annotations

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.config import RecallConfig
from recall_engine.core import limits
from recall_engine.core.errors import ConfigError, InputTooLargeError, InvalidInputError
from recall_engine.ingest.sources import collect_sources


@pytest.fixture
async def small(tmp_path, hash_embedder):
    eng = RecallEngine(
        tmp_path / "data", embedder=hash_embedder, max_item_chars=1000, max_query_chars=50
    )
    yield eng
    eng.close()


async def test_an_item_over_the_limit_is_refused_and_nothing_is_stored(small):
    await small.remember("Ada Lovelace lives in London.", dataset_name="notes")
    store = small.store()
    before = (len(store.index), len(store.graph.documents()), len(store.graph.entities()))
    with pytest.raises(InputTooLargeError) as caught:
        await small.remember(
            ["Grace Hopper moved to Arlington.", Document(text="a " * 600, title="big")],
            dataset_name="notes",
        )
    message = str(caught.value)
    assert isinstance(caught.value, InvalidInputError)  # hence a ValueError too
    assert "1,200 characters" in message and "1,000" in message and "max_item_chars" in message
    assert "Split" in message and "remember() item 1" in message
    after = (len(store.index), len(store.graph.documents()), len(store.graph.entities()))
    assert after == before  # the valid item of the same call was not stored either


async def test_a_conversation_counts_all_its_messages(small):
    turns = [Message(speaker="Ann", text="x" * 400) for _ in range(3)]
    with pytest.raises(InputTooLargeError, match="1,200 characters"):
        await small.remember(Conversation(messages=turns), dataset_name="chat")
    result = await small.remember(Conversation(messages=turns[:2]), dataset_name="chat")
    assert result.chunk_count == 2


async def test_a_query_over_the_limit_is_refused_on_every_entry_point(small):
    await small.remember("Ada Lovelace lives in London.", dataset_name="notes")
    long = "where " * 10
    with pytest.raises(InputTooLargeError, match=r"query_text holds 60 characters.*50"):
        await small.recall(long, SearchType.CHUNKS, only_context=True)
    within = "Ada Lovelace in London " * 2  # 48 characters: under the limit, answered
    assert await small.recall(within, SearchType.CHUNKS, only_context=True)
    await small.create_tenant("acme")
    with pytest.raises(InputTooLargeError, match="max_query_chars"):
        await small.full_recall(tenant_id="acme", query=long)
    with pytest.raises(InputTooLargeError, match="additional_context"):
        await small.full_recall(tenant_id="acme", query="tea", additional_context=long)
    with pytest.raises(InputTooLargeError, match="max_query_chars"):
        await small.boolean_recall("acme", long)


def test_the_default_item_limit_takes_a_10_mb_document():
    ten_mb = "Ada wrote notes. " * (10_000_000 // 17)
    (item,) = collect_sources(ten_mb, max_chars=RecallConfig().max_item_chars).items
    assert item.chars == len(ten_mb)
    over = "a" * (limits.DEFAULT_MAX_ITEM_CHARS + 1)
    with pytest.raises(InputTooLargeError, match="16,777,216"):
        collect_sources(over, max_chars=RecallConfig().max_item_chars)


def test_limits_are_configurable_within_their_ceilings(monkeypatch):
    monkeypatch.setenv("RECALL_ENGINE_MAX_QUERY_CHARS", "2000")
    assert RecallConfig.load().max_query_chars == 2000
    assert RecallConfig().max_query_chars == limits.DEFAULT_MAX_QUERY_CHARS
    with pytest.raises(ConfigError, match="max_item_chars"):
        RecallConfig(max_item_chars=limits.MAX_ITEM_CHARS_CEILING + 1)
    with pytest.raises(ConfigError, match="max_query_chars"):
        RecallConfig(max_query_chars=0)
    monkeypatch.setenv("RECALL_ENGINE_MAX_ITEM_CHARS", "lots")
    with pytest.raises(ConfigError, match="RECALL_ENGINE_MAX_ITEM_CHARS"):
        RecallConfig.load()
