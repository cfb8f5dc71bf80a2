"""Embedding an ingest's texts: in windows of batches, each output checked."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recall_engine.core.errors import EmbeddingError, RecallEngineError
from recall_engine.embedding import Embedder
from recall_engine.embedding.common import check_vectors
from recall_engine.telemetry.spans import stage

PROGRESS_MIN_CHUNKS = 512
WINDOW_BATCHES = 16
"""Batches embedded per call to the embedder (see ``embed_all``)."""


@dataclass(frozen=True)
class CheckedEmbedder:
    """An embedder whose every output is checked against the store's dimension
    (``check_vectors``) before the pipeline uses it, and whose failures are
    ``EmbeddingError`` (a custom embedder's own exception is its cause)."""

    inner: Embedder
    dimension: int

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        try:
            vectors = self.inner.embed(texts, batch_size=batch_size)
        except RecallEngineError:
            raise
        except Exception as exc:
            raise EmbeddingError(
                f"The embedder {self.inner.model_id!r} failed on {len(texts)} text(s): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return check_vectors(
            vectors, rows=len(texts), dimension=self.dimension, model_id=self.inner.model_id
        )


def embed_all(
    embedder: Embedder, texts: Sequence[str], *, batch_size: int, show_progress: bool | None
) -> np.ndarray:
    """Embed in windows of ``WINDOW_BATCHES`` batches, with a progress bar on long
    ingests at a terminal. A window at a time keeps the model's tokenised inputs
    for one window in memory, not for every chunk of a 10 MB document.

    A text that repeats (a short reply said again, a sentence two overlapping chunks
    share) is embedded once.

    Args:
        embedder: the model that embeds.
        texts: the texts, in the order their vectors are wanted.
        batch_size: texts per batch.
        show_progress: a progress bar; None shows one on a terminal for long ingests.

    Returns:
        One unit vector per text, as rows of a float32 array.
    """
    unique = list(dict.fromkeys(texts))
    with stage("remember.embedding") as span:
        span.set("recall_engine.embedding.texts", len(unique))
        if len(unique) < len(texts):
            vectors = _embed_windows(embedder, unique, batch_size, show_progress)
            row = {text: i for i, text in enumerate(unique)}
            return vectors[[row[text] for text in texts]]
        return _embed_windows(embedder, texts, batch_size, show_progress)


def _embed_windows(
    embedder: Embedder, texts: Sequence[str], batch_size: int, show_progress: bool | None
) -> np.ndarray:
    if show_progress is None:
        show_progress = sys.stderr.isatty() and len(texts) >= PROGRESS_MIN_CHUNKS
    step = batch_size * WINDOW_BATCHES
    if len(texts) <= step:
        return embedder.embed(texts, batch_size=batch_size)
    from tqdm import tqdm

    parts = []
    with tqdm(total=len(texts), unit="chunk", desc="embedding", disable=not show_progress) as bar:
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            parts.append(embedder.embed(batch, batch_size=batch_size))
            bar.update(len(batch))
    return np.concatenate(parts)
