"""A part of a query (the graph search's rest of a question without its speakers'
names) is embedded from the question's own forward pass where the model allows, and
as a text of its own, in the question's model call, where it does not."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.embedding import QUERY_CACHE, WrappedEmbedder
from recall_engine.embedding.parts import (
    PART_CACHE,
    cached_part,
    embed_query_part,
    embed_query_parts,
    parts_method,
)
from recall_engine.testing import DeterministicEmbedder
from retrievers.content_query import rest_spans
from tests.pipeline.test_lazy_query_vector import BatchRecordingEmbedder

QUESTION = "What does Ann do to relax?"


@pytest.fixture(autouse=True)
def _empty_caches():
    QUERY_CACHE.clear()
    PART_CACHE.clear()
    yield
    QUERY_CACHE.clear()
    PART_CACHE.clear()


def test_onnx_pools_the_part_from_the_question_own_pass(onnx_minilm) -> None:
    spans = rest_spans(QUESTION, {"Ann"})
    assert spans is not None
    whole, part = onnx_minilm.embed_with_parts(QUESTION, spans)
    np.testing.assert_allclose(whole, onnx_minilm.embed([QUESTION])[0], atol=1e-5)
    assert part is not None and abs(float(np.linalg.norm(part)) - 1) < 1e-5
    alone = onnx_minilm.embed(["to relax"])[0]
    name = onnx_minilm.embed(["Ann"])[0]
    # the part reads as what is asked, not as the person it is asked about
    assert float(part @ alone) > float(whole @ alone)
    assert float(part @ name) < float(whole @ name)
    _, none = onnx_minilm.embed_with_parts(QUESTION, ((len(QUESTION), len(QUESTION) + 3),))
    assert none is None


def test_onnx_part_vector_is_cached_with_the_question_after_one_pass(onnx_minilm) -> None:
    calls: list[str] = []

    class Spy(WrappedEmbedder):
        def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
            calls.extend(texts)
            return super().embed(texts, batch_size=batch_size)

    spy = Spy(onnx_minilm)
    assert parts_method(spy) is not None  # found through the wrapper
    spans = rest_spans(QUESTION, {"Ann"})
    assert spans is not None
    part = embed_query_part(spy, QUESTION, spans)
    assert calls == []  # no second model call: the part came from the question's pass
    cached = QUERY_CACHE.get(spy.model_id, QUESTION)
    assert cached is not None
    np.testing.assert_allclose(cached, onnx_minilm.embed([QUESTION])[0], atol=1e-5)
    assert embed_query_part(spy, QUESTION, spans) is part


def test_a_model_that_cannot_pool_embeds_the_part_words_with_the_question() -> None:
    embedder = BatchRecordingEmbedder()
    assert parts_method(embedder) is None
    spans = rest_spans(QUESTION, {"Ann"})
    assert spans is not None
    part = embed_query_part(embedder, QUESTION, spans)
    assert embedder.batches == [[QUESTION, "to relax"]]
    assert part.tolist() == embedder.embed(["to relax"])[0].tolist()
    embedder.batches.clear()
    embed_query_part(embedder, QUESTION, spans)
    assert embedder.batches == []


class PoolingRecorder(BatchRecordingEmbedder):
    """Deterministic vectors, and a part method that records its calls."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def embed_with_parts(self, text: str, spans):  # type: ignore[no-untyped-def]
        self.parts.append(" ".join(text[a:b] for a, b in spans))
        whole = DeterministicEmbedder.embed(self, [text])[0]
        return whole, DeterministicEmbedder.embed(self, [self.parts[-1]])[0]


async def test_the_routed_default_makes_one_model_call_for_a_question_naming_a_speaker(
    tmp_path,
) -> None:
    embedder = PoolingRecorder()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    messages = [
        Message(id="D1:1", speaker="Ann", text="I paint to relax.", timestamp="2023-05-08T13:56"),
        Message(id="D1:2", speaker="Bob", text="I go sailing.", timestamp="2023-05-08T13:57"),
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    QUERY_CACHE.clear()
    embedder.batches.clear()
    results = await engine.recall(QUESTION, datasets=["chat"], only_context=True)
    assert results
    assert embedder.parts == ["to relax"] and embedder.batches == []
    engine.close()


def test_both_backends_pool_the_same_part(onnx_minilm, minilm) -> None:
    for question in (QUESTION, "What kinds of music has Ann Lee played with Bob?"):
        spans = rest_spans(question, {"Ann", "Ann Lee", "Bob"})
        assert spans is not None
        onnx_whole, onnx_part = onnx_minilm.embed_with_parts(question, spans)
        torch_whole, torch_part = minilm.embed_with_parts(question, spans)
        assert onnx_part is not None and torch_part is not None
        assert float(onnx_whole @ torch_whole) > 0.9999
        assert float(onnx_part @ torch_part) > 0.9999
        np.testing.assert_allclose(torch_whole, minilm.embed([question])[0], atol=1e-5)


def test_a_tokenizer_without_offsets_gives_no_part(minilm, monkeypatch) -> None:
    tokenizer = minilm._loaded().tokenizer
    monkeypatch.setattr(type(tokenizer), "is_fast", property(lambda self: False))
    spans = rest_spans(QUESTION, {"Ann"})
    assert spans is not None
    whole, part = minilm.embed_with_parts(QUESTION, spans)
    assert part is None
    np.testing.assert_allclose(whole, minilm.embed([QUESTION])[0], atol=1e-6)
    # the part is then embedded as the words it holds
    vector = embed_query_part(minilm, QUESTION, spans)
    np.testing.assert_allclose(vector, minilm.embed(["to relax"])[0], atol=1e-5)


def test_several_queries_and_their_parts_in_one_pass_match_one_at_a_time(
    onnx_minilm, minilm
) -> None:
    """A batch pads its shorter texts; each text's vectors are still its own."""
    speakers = {"Ann", "Bob"}
    questions = [QUESTION, "Which places has Bob visited in the two years since he moved?"]
    items = [(q, rest_spans(q, speakers)) for q in questions]
    assert all(spans is not None for _, spans in items)
    for embedder in (onnx_minilm, minilm):
        together = embedder.embed_many_with_parts(items)
        assert len(together) == 2
        for (question, spans), (whole, part) in zip(items, together, strict=True):
            alone_whole, alone_part = embedder.embed_with_parts(question, spans)
            assert part is not None and alone_part is not None
            np.testing.assert_allclose(whole, alone_whole, atol=1e-5)
            np.testing.assert_allclose(part, alone_part, atol=1e-5)
    assert onnx_minilm.embed_many_with_parts([]) == []


class ManyPooling(DeterministicEmbedder):
    """Deterministic vectors; records each batch of (text, part words) it pools."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: list[list[str]] = []

    def embed_with_parts(self, text: str, spans):  # type: ignore[no-untyped-def]
        return self.embed_many_with_parts([(text, spans)])[0]

    def embed_many_with_parts(self, items):  # type: ignore[no-untyped-def]
        words = [" ".join(t[a:b] for a, b in s) for t, s in items]
        self.passes.append(words)
        wholes = self.embed([t for t, _ in items])
        return list(zip(wholes, self.embed(words), strict=True))


def test_queries_with_parts_not_cached_take_one_pass() -> None:
    embedder = ManyPooling()
    first = "Where does Bob work?"
    items = [(q, rest_spans(q, {"Ann", "Bob"})) for q in (QUESTION, first)]
    embed_query_part(embedder, *items[0])  # cached: not asked again
    embedder.passes.clear()
    third = ("What did Ann cook for Bob?", rest_spans("What did Ann cook for Bob?", {"Ann", "Bob"}))
    embed_query_parts(embedder, [*items, third, items[1]])
    assert embedder.passes == [["work", "cook for"]]
    for text, spans in (*items, third):
        assert cached_part(embedder, text, spans) is not None
        assert QUERY_CACHE.get(embedder.model_id, text) is not None
    np.testing.assert_array_equal(
        embed_query_part(embedder, *third), embedder.embed(["cook for"])[0]
    )
    assert len(embedder.passes) == 1  # everything above came from the cache
