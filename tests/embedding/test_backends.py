"""Both backends embed the packaged model to the same vectors, under one identity."""

from __future__ import annotations

import numpy as np
import pytest

from recall_engine import RecallEngine
from recall_engine.core.errors import InvalidInputError
from recall_engine.embedding import PACKAGED_MODEL_ID, QUERY_CACHE, embed_query

TEXTS = [
    "Where was Einstein born?",
    "Einstein was born in Ulm.",
    "x",
    "",
    "   \n\t ",
    "ünïcödé 東京 🚀 naïve café",
    "Melanie: I moved to Lyon last week, and the new job starts on Monday.",
    # Longer than max_seq_length (256 tokens): both truncate at the same token.
    "The quick brown fox jumps over the lazy dog. " * 60,
    " ".join(f"token{i}" for i in range(700)),
]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_onnx_vectors_match_torch(onnx_minilm, minilm):
    onnx, torch = onnx_minilm.embed(TEXTS), minilm.embed(TEXTS)
    assert cosines(onnx, torch).min() >= 0.99999


def test_onnx_batches_do_not_change_vectors(onnx_minilm):
    whole = onnx_minilm.embed(TEXTS, batch_size=64)
    one_by_one = np.vstack([onnx_minilm.embed([t], batch_size=1) for t in TEXTS])
    assert cosines(whole, one_by_one).min() >= 0.99999


def test_identity_shape_and_unit_rows(backend_embedder):
    assert backend_embedder.model_id == PACKAGED_MODEL_ID
    assert backend_embedder.dimension == 384
    vectors = backend_embedder.embed(TEXTS[:3])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert backend_embedder.embed([]).shape == (0, 384)


def test_query_cache_hit_does_not_embed_again(backend_embedder, monkeypatch):
    QUERY_CACHE.clear()
    calls = []
    real = backend_embedder.embed

    def counting(texts, *, batch_size=64):
        calls.append(list(texts))
        return real(texts, batch_size=batch_size)

    monkeypatch.setattr(backend_embedder, "embed", counting)
    first = embed_query(backend_embedder, "Who founded Acme Corp?")
    second = embed_query(backend_embedder, "Who founded Acme Corp?")
    assert second is first and len(calls) == 1
    assert first.shape == (384,) and not first.flags.writeable
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-5


async def test_blank_query_rejected_before_embedding(tmp_path, backend_embedder):
    async with RecallEngine(tmp_path / "data", embedder=backend_embedder) as engine:
        await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
        with pytest.raises(InvalidInputError):
            await engine.recall("   \n", query_type="CHUNKS", only_context=True)


def test_onnx_batches_keep_short_texts_apart_from_long_ones() -> None:
    """Every text once, longest first, at most ``batch_size`` per batch, and no text
    padded to more than twice its length: an ingest's chunk, sentences and names apart."""
    import random

    from recall_engine.embedding.onnx import _batches

    assert _batches([256, 30, 28, 5, 4, 40, 6], 64) == [[0], [5, 1, 2], [6, 3, 4]]
    assert _batches([], 8) == []
    rng = random.Random(3)
    for _ in range(300):
        lengths = [rng.randint(1, 256) for _ in range(rng.randint(1, 80))]
        size = rng.randint(1, 16)
        batches = _batches(lengths, size)
        flat = [i for batch in batches for i in batch]
        assert sorted(flat) == list(range(len(lengths)))
        assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
        for batch in batches:
            assert len(batch) <= size
            assert all(2 * lengths[i] > lengths[batch[0]] for i in batch)


def test_embedders_of_one_model_share_one_loaded_session() -> None:
    """Each engine of a process builds its own embedder; the model's weights are
    loaded once per thread count, not once per engine."""
    from recall_engine.embedding.onnx import OnnxEmbedder

    first, second, other = OnnxEmbedder(threads=1), OnnxEmbedder(threads=1), OnnxEmbedder(threads=2)
    assert first._loaded()[0] is second._loaded()[0]
    assert first._loaded()[0] is not other._loaded()[0]  # its own intra-op thread pool
    texts = ["Ann moved to Lyon.", "Bob plays the violin."]
    assert np.allclose(first.embed(texts), other.embed(texts), atol=1e-5)
