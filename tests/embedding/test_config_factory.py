"""Choosing the backend and its threads from the configuration."""

from __future__ import annotations

import pytest

from recall_engine.config import PACKAGED_EMBEDDING_MODEL, RecallConfig
from recall_engine.core.errors import InvalidInputError
from recall_engine.embedding import SentenceTransformerEmbedder, default_threads, make_embedder
from recall_engine.embedding.onnx import OnnxEmbedder


def test_packaged_model_defaults_to_onnx(monkeypatch):
    monkeypatch.delenv("RECALL_ENGINE_EMBEDDING_BACKEND", raising=False)
    config = RecallConfig.load()
    assert config.resolved_embedding_backend == "onnx"
    assert isinstance(make_embedder(config), OnnxEmbedder)


def test_other_models_default_to_torch(tmp_path):
    (tmp_path / "modules.json").write_text("[]")  # a saved model's folder (never loaded here)
    config = RecallConfig(embedding_model=str(tmp_path))
    assert config.resolved_embedding_backend == "torch"
    embedder = make_embedder(config)
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.model_id == str(tmp_path)


def test_environment_chooses_backend_and_threads(monkeypatch):
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_BACKEND", "torch")
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_THREADS", "1")
    config = RecallConfig.load()
    embedder = make_embedder(config)
    assert isinstance(embedder, SentenceTransformerEmbedder) and embedder.threads == 1


def test_onnx_for_another_model_is_a_config_error():
    with pytest.raises(InvalidInputError, match="embedding_backend='torch'"):
        RecallConfig.load(embedding_backend="onnx", embedding_model="/models/e5-small")


@pytest.mark.parametrize("raw", ["tensorflow", "0"])
def test_bad_values_rejected(monkeypatch, raw):
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_BACKEND", raw if raw != "0" else "onnx")
    monkeypatch.setenv("RECALL_ENGINE_EMBEDDING_THREADS", raw if raw == "0" else "2")
    with pytest.raises(InvalidInputError):
        RecallConfig.load()


def test_threads_default_to_usable_cores(tmp_path):
    config = RecallConfig(embedding_cache_dir=tmp_path)
    embedder = make_embedder(config)
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.threads == default_threads() >= 1
    assert config.embedding_model == PACKAGED_EMBEDDING_MODEL


def test_onnx_threads_option_reaches_the_session(onnx_minilm):
    one = OnnxEmbedder(threads=1, cache_dir=onnx_minilm._cache_dir)
    one.warm_up()
    session, _ = one._loaded()
    assert session.get_session_options().intra_op_num_threads == 1
    assert one.embed(["hello"]).shape == (1, 384)


def test_torch_threads_option_sets_torch(minilm):
    import torch

    before = torch.get_num_threads()
    try:
        embedder = SentenceTransformerEmbedder(threads=1)
        embedder.embed(["hello"])
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
