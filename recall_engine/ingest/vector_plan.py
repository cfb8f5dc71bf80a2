"""Which texts an ingest embeds for its chunks, and how their vectors come back
together as chunk vectors and sentence vectors.

Every chunk is embedded whole (its ``embed_text``); a chunk of several sentences
also has its sentences embedded (``ChunkDraft.embed_sentences``, for
``storage.sentence_index``). Pooling a chunk's vector from its sentences' instead
of embedding it was measured and not kept (``docs/decisions.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recall_engine.ingest.chunking import ChunkDraft


@dataclass(frozen=True)
class VectorPlan:
    """The texts to embed for some chunk drafts, and where each chunk's are.

    Attributes:
        texts: every chunk's ``embed_text`` in order, then every chunk's sentences.
        sentence_counts: per chunk, how many sentences it has (its sentences are
            contiguous, in chunk order, after the chunk texts).
    """

    texts: list[str]
    sentence_counts: list[int]

    @classmethod
    def of(cls, drafts: Sequence[ChunkDraft]) -> VectorPlan:
        """The plan for ``drafts``."""
        texts = [d.embed_text for d in drafts]
        texts += [s for d in drafts for s in d.embed_sentences]
        return cls(texts=texts, sentence_counts=[len(d.embed_sentences) for d in drafts])

    @property
    def sentence_total(self) -> int:
        """How many of ``texts`` are sentences (the last ones)."""
        return len(self.texts) - len(self.sentence_counts)

    def assemble(self, vectors: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """The chunk vectors (one row per chunk) and each chunk's sentence vectors,
        from ``vectors``, one row per ``self.texts``.

        Raises:
            ValueError: ``vectors`` has not one row per text.
        """
        if len(vectors) != len(self.texts):
            raise ValueError(f"{len(vectors)} vectors for {len(self.texts)} texts")
        n = len(self.sentence_counts)
        per_chunk: list[np.ndarray] = []
        at = n
        for count in self.sentence_counts:
            per_chunk.append(vectors[at : at + count])
            at += count
        return vectors[:n], per_chunk
