"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from recall_engine.testing import block_network


@pytest.fixture(scope="session", autouse=True)
def _no_network() -> Iterator[None]:
    """No test may reach a real provider: only 127.0.0.1 / ::1 / localhost connect."""
    with block_network():
        yield


@pytest.fixture
def hash_embedder():
    """A fast deterministic embedder for tests that do not measure semantic quality."""
    from recall_engine.testing import DeterministicEmbedder

    return DeterministicEmbedder()


@pytest.fixture
async def engine(tmp_path, hash_embedder):
    """An engine on a fresh data dir with the deterministic embedder."""
    from recall_engine import RecallEngine

    eng = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def minilm():
    """The real packaged all-MiniLM-L6-v2 embedder, loaded once per test session."""
    from recall_engine.embedding import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture(scope="session")
def onnx_minilm():
    """The packaged model on ONNX Runtime (exported once into the user cache), once per session."""
    from recall_engine.embedding_onnx import OnnxEmbedder

    embedder = OnnxEmbedder()
    embedder.warm_up()
    return embedder
