"""The query is embedded only for retrievers that use its vector."""

from __future__ import annotations

from recall_engine import RecallEngine, SearchType
from recall_engine.embedding.common import QUERY_CACHE
from recall_engine.testing import DeterministicEmbedder


class CountingEmbedder(DeterministicEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().embed(texts, batch_size=batch_size)


async def test_lexical_recall_does_not_embed_and_dense_recall_does(tmp_path) -> None:
    embedder = CountingEmbedder()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
    QUERY_CACHE.clear()
    before = embedder.calls
    hits = await engine.recall("Where was Einstein born?", SearchType.CHUNKS_LEXICAL)
    assert hits and embedder.calls == before
    hits = await engine.recall("Where was Einstein born?", SearchType.CHUNKS)
    assert hits and embedder.calls == before + 1
    engine.close()


class BatchRecordingEmbedder(DeterministicEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed(self, texts, *, batch_size: int = 64):  # type: ignore[no-untyped-def]
        self.batches.append(list(texts))
        return super().embed(texts, batch_size=batch_size)


async def test_a_question_naming_a_speaker_and_its_rest_share_one_model_call(tmp_path) -> None:
    """The graph search's passage lane also searches with the question without its
    speakers' names; the pipeline embeds that rest with the question, in one call,
    and a document question embeds the question alone."""
    from recall_engine import Conversation, Message

    embedder = BatchRecordingEmbedder()
    engine = RecallEngine(tmp_path / "data", embedder=embedder)
    turns = [("Ann", "I spent the weekend at the pottery studio."), ("Bob", "I went sailing.")]
    messages = [
        Message(id=f"D1:{i}", speaker=s, text=t, timestamp="2023-05-08T13:56:00")
        for i, (s, t) in enumerate(turns, start=1)
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")
    await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
    for question, dataset, batch in (
        (
            "What does Ann make at the studio?",
            "chat",
            ["What does Ann make at the studio?", "make at the studio"],
        ),
        ("Where was Einstein born?", "physics", ["Where was Einstein born?"]),
    ):
        QUERY_CACHE.clear()
        embedder.batches.clear()
        await engine.recall(question, SearchType.GRAPH_COMPLETION, datasets=[dataset])
        assert embedder.batches == [batch], question
    engine.close()


def test_embed_queries_embeds_what_is_not_cached_in_one_call() -> None:
    from recall_engine.embedding import embed_queries, embed_query

    embedder = BatchRecordingEmbedder()
    QUERY_CACHE.clear()
    embed_query(embedder, "b")
    embedder.batches.clear()
    got = embed_queries(embedder, ["a", "b", "c", "a"])
    assert list(got) == ["a", "b", "c"] and embedder.batches == [["a", "c"]]
    for text, vector in got.items():
        assert vector.tolist() == embedder.embed([text])[0].tolist()
    embedder.batches.clear()
    assert list(embed_queries(embedder, ["c", "d"])) == ["c", "d"] and embedder.batches == [["d"]]
