"""Test doubles shipped with the library, for our tests and for yours.

- ``FakeLLMServer``: an OpenAI-compatible chat-completions server on 127.0.0.1
  with scripted replies and failures; point any litellm model string
  ``openai/<name>`` at ``server.base_url`` and the real client path runs.
- ``DeterministicEmbedder``: hashed bag-of-words vectors; same text, same
  vector, in every process.
- ``block_network()`` / ``install_network_guard()``: refuse any connection that
  is not to the local machine.

Also usable as pytest fixtures: ``pytest_plugins = ["recall_engine.testing"]``
gives ``fake_llm_server``.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterator, Sequence

import numpy as np

from recall_engine._fake_llm import FakeLLMServer, RecordedRequest, ScriptedReply
from recall_engine._netguard import (
    NetworkBlockedError,
    block_network,
    install_network_guard,
    network_guard_installed,
    uninstall_network_guard,
)

__all__ = [
    "DeterministicEmbedder",
    "FakeLLMServer",
    "NetworkBlockedError",
    "RecordedRequest",
    "ScriptedReply",
    "block_network",
    "install_network_guard",
    "network_guard_installed",
    "uninstall_network_guard",
]


_TOKEN = re.compile(r"\w+")


class DeterministicEmbedder:
    """A hashed bag-of-words ``Embedder``: fast, dependency-free, identical across processes.

    Each lowercased token (and each adjacent token pair) adds a signed weight to
    a bucket chosen by BLAKE2b, so texts that share words get similar vectors.
    Empty text gets a fixed unit vector so every row has unit length.
    """

    def __init__(
        self, dimension: int = 384, *, model_id: str = "recall-engine/deterministic-hash"
    ) -> None:
        if dimension < 8:
            raise ValueError(f"dimension must be at least 8, got {dimension}")
        self._dimension = dimension
        self._model_id = f"{model_id}-{dimension}"

    @property
    def model_id(self) -> str:
        """The id a store records, so that it refuses to open with another model."""
        return self._model_id

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        return self._dimension

    def _features(self, text: str) -> Iterator[tuple[str, float]]:
        tokens = [t.lower() for t in _TOKEN.findall(text)]
        for tok in tokens:
            yield tok, 1.0
        for left, right in itertools.pairwise(tokens):
            yield f"{left} {right}", 0.5

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self._dimension, dtype=np.float64)
        for feature, weight in self._features(text):
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self._dimension
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign * weight
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0], norm = 1.0, 1.0
        return vec / norm

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Return a float32 array of shape (len(texts), dimension), rows of unit length."""
        if len(texts) == 0:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts]).astype(np.float32)


try:
    import pytest
except ImportError:  # pytest is only needed for the fixture
    pass
else:

    @pytest.fixture
    def fake_llm_server() -> Iterator[FakeLLMServer]:
        """A started ``FakeLLMServer``, stopped after the test."""
        with FakeLLMServer() as server:
            yield server
