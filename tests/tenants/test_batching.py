"""The tenant API's query batcher: batches concurrent queries and reads the
per-process query cache before asking the model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from recall_engine import RecallEngine
from recall_engine.embedding import embed_query
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.embedding.parts import PART_CACHE, cached_part
from recall_engine.tenants.batching import QueryBatcher
from recall_engine.testing import DeterministicEmbedder
from retrievers.content_query import rest_spans
from tests.conversation_turns import conversation_turn


class Counting(DeterministicEmbedder):
    """Counts the model calls and the texts in them."""

    def __init__(self) -> None:
        super().__init__(dimension=16, model_id="batching-test")
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed(texts, batch_size=batch_size)


async def test_a_cached_query_asks_no_model_and_batches_ask_once():
    QUERY_CACHE.clear()
    embedder = Counting()
    batcher = QueryBatcher(embedder)
    first = await batcher.embed("where did Ann move?")
    again = await batcher.embed("where did Ann move?")
    assert embedder.calls == [["where did Ann move?"]]
    assert again is first  # the cache's own read-only array, as embed_query returns
    assert not again.flags.writeable
    texts = ["where did Ann move?", "a new one", "another new one", "a new one"]
    got = await asyncio.gather(*(batcher.embed(t) for t in texts))
    # The cached query waits for nothing; the rest share one model call.
    assert embedder.calls[1:] == [["a new one", "another new one"]]
    for text, vector in zip(texts, got, strict=True):
        np.testing.assert_array_equal(vector, embed_query(embedder, text))
    assert len(embedder.calls) == 2  # embed_query above found every text cached
    QUERY_CACHE.clear()


class PoolingCounter(Counting):
    """``Counting``, and a part method (as the real backends pool a part from the
    text's own pass) that records the parts asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def embed_with_parts(self, text, spans):  # type: ignore[no-untyped-def]
        self.parts.append(" ".join(text[a:b] for a, b in spans))
        return (
            DeterministicEmbedder.embed(self, [text])[0],
            DeterministicEmbedder.embed(self, [self.parts[-1]])[0],
        )


async def test_a_query_with_a_part_takes_one_pass_beside_the_batch():
    QUERY_CACHE.clear()
    PART_CACHE.clear()
    embedder = PoolingCounter()
    batcher = QueryBatcher(embedder)
    question = "What does Ann do to relax?"
    spans = rest_spans(question, {"Ann"})
    assert spans is not None
    got = await asyncio.gather(
        batcher.embed(question, spans), batcher.embed("a new one"), batcher.embed("another")
    )
    # the question's vector and its part's came from its own pass; the rest batched
    assert embedder.parts == ["to relax"]
    assert embedder.calls == [["a new one", "another"]]
    np.testing.assert_array_equal(got[0], DeterministicEmbedder.embed(embedder, [question])[0])
    assert cached_part(embedder, question, spans) is not None
    # both cached: asking again, with or without the part, asks the model nothing
    await batcher.embed(question, spans)
    await batcher.embed(question)
    assert embedder.parts == ["to relax"] and len(embedder.calls) == 1


async def test_a_model_that_cannot_pool_batches_the_query_alone():
    QUERY_CACHE.clear()
    PART_CACHE.clear()
    embedder = Counting()
    question = "What does Ann do to relax?"
    await QueryBatcher(embedder).embed(question, rest_spans(question, {"Ann"}))
    assert embedder.calls == [[question]]  # the part's words are the graph lane's to embed


async def test_a_thinking_recall_naming_a_speaker_makes_one_model_pass(tmp_path):
    """The tenant API's thinking mode searches with the question and with its rest
    (without the speakers' names): one forward pass gives both."""
    engine = RecallEngine(tmp_path / "data", embedder=PoolingCounter())
    embedder = engine.embedder
    assert isinstance(embedder, PoolingCounter)
    await engine.create_tenant("acme")
    turns = [
        conversation_turn(0, "I paint in the garden to relax.", "Ann"),
        conversation_turn(1, "I go sailing on Sundays.", "Bob"),
    ]
    assert (await engine.upload_knowledge("acme", turns, sub_tenant_id="chat")).success_count == 2
    QUERY_CACHE.clear()
    PART_CACHE.clear()
    embedder.calls.clear()
    found = await engine.full_recall(
        tenant_id="acme", sub_tenant_id="chat", query="What does Ann do to relax?", mode="thinking"
    )
    assert found.chunks and "paint" in found.chunks[0].chunk_content
    assert embedder.parts == ["to relax"] and embedder.calls == []
    engine.close()


class ManyPoolingCounter(PoolingCounter):
    """``PoolingCounter`` that also pools several texts' parts in one pass."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: list[list[str]] = []

    def embed_many_with_parts(self, items):  # type: ignore[no-untyped-def]
        self.passes.append([text for text, _ in items])
        return [self.embed_with_parts(text, spans) for text, spans in items]


async def test_concurrent_queries_with_parts_share_one_pass():
    QUERY_CACHE.clear()
    PART_CACHE.clear()
    embedder = ManyPoolingCounter()
    batcher = QueryBatcher(embedder)
    questions = ["What does Ann do to relax?", "Where did Bob go with Ann?"]
    await asyncio.gather(
        batcher.embed("a plain one"),
        *(batcher.embed(q, rest_spans(q, {"Ann", "Bob"})) for q in questions),
    )
    # one batch: the plain query in one model call, the two with parts in one pass
    assert embedder.calls == [["a plain one"]]
    assert embedder.passes == [questions]
    assert all(QUERY_CACHE.get(embedder.model_id, q) is not None for q in questions)
