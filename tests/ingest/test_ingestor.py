from recall_engine.ingest.embed_batches import embed_all
from recall_engine.testing import DeterministicEmbedder


def test_progress_bar_on_request_and_quiet_by_default(capsys):
    texts = [f"note {i}" for i in range(300)]
    vectors = embed_all(DeterministicEmbedder(), texts, batch_size=16, show_progress=True)
    assert vectors.shape == (300, 384)
    assert "embedding" in capsys.readouterr().err
    embed_all(DeterministicEmbedder(), texts, batch_size=16, show_progress=None)
    assert capsys.readouterr().err == ""  # not a terminal under pytest


def test_batched_embedding_equals_one_call():
    embedder = DeterministicEmbedder()
    texts = [f"text number {i}" for i in range(100)]
    batched = embed_all(embedder, texts, batch_size=8, show_progress=True)
    assert (batched == embedder.embed(texts)).all()


class _Counting:
    """Counts the texts it is asked to embed."""

    def __init__(self) -> None:
        self.inner = DeterministicEmbedder()
        self.seen: list[str] = []
        self.model_id = self.inner.model_id
        self.dimension = self.inner.dimension

    def embed(self, texts, *, batch_size=64):
        self.seen += list(texts)
        return self.inner.embed(texts, batch_size=batch_size)


def test_repeated_texts_are_embedded_once_and_keep_their_rows():
    embedder = _Counting()
    texts = [f"reply {i % 7}" for i in range(400)]  # over one window of batches
    vectors = embed_all(embedder, texts, batch_size=8, show_progress=False)
    assert sorted(embedder.seen) == sorted(set(texts))
    assert (vectors == embedder.inner.embed(texts)).all()
