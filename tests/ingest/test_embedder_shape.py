"""An embedder that returns the wrong shape fails with an ``EmbeddingError`` that
names the expected and actual dimension, before anything is stored or searched
(it used to surface as pyarrow's ``ArrowInvalid`` from inside LanceDB)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.errors import EmbeddingError
from recall_engine.embedding import embed_query
from recall_engine.testing import DeterministicEmbedder


class ShortEmbedder(DeterministicEmbedder):
    """Says 16 dimensions, returns 8 (in ``embed`` or only in ``embed_query``)."""

    def __init__(self, *, only_queries: bool = False) -> None:
        super().__init__(dimension=16)
        self.only_queries = only_queries

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        full = super().embed(texts, batch_size=batch_size)
        return full if self.only_queries else full[:, :8]

    def embed_query(self, text: str) -> np.ndarray:
        return super().embed([text])[0][:8]


class NanEmbedder(DeterministicEmbedder):
    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        return np.full((len(texts), self.dimension), np.nan, dtype=np.float32)


async def stored_items(eng: RecallEngine) -> int:
    store = eng.store()
    return len(store.graph.document_ids()) + store.vectors.count() + len(store.index)


@pytest.mark.parametrize("extractor", ["rules", "none"])
async def test_a_wrong_dimension_at_ingest_names_both_and_stores_nothing(
    tmp_path, extractor
) -> None:
    eng = RecallEngine(tmp_path / "data", embedder=ShortEmbedder(), graph_extractor=extractor)
    try:
        with pytest.raises(EmbeddingError, match=r"dimension 8.*expects dimension 16"):
            await eng.remember(Document(text="Ada Lovelace lived in London."), dataset_name="d")
        assert await stored_items(eng) == 0
    finally:
        eng.close()


async def test_non_finite_vectors_are_refused(tmp_path) -> None:
    eng = RecallEngine(tmp_path / "data", embedder=NanEmbedder(dimension=16))
    try:
        with pytest.raises(EmbeddingError, match="NaN"):
            await eng.remember("Ada Lovelace lived in London.", dataset_name="d")
        assert await stored_items(eng) == 0
    finally:
        eng.close()


async def test_a_wrong_dimension_at_query_time_names_both(tmp_path) -> None:
    eng = RecallEngine(tmp_path / "data", embedder=ShortEmbedder(only_queries=True))
    try:
        await eng.remember("Ada Lovelace lived in London.", dataset_name="d")
        with pytest.raises(EmbeddingError, match=r"dimension 8.*expects dimension 16"):
            await eng.recall("Where did Ada live?", SearchType.CHUNKS, only_context=True)
    finally:
        eng.close()


def test_embed_query_checks_the_fallback_path_too() -> None:
    class Wide(DeterministicEmbedder):
        def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
            return np.ones((len(texts), 32), dtype=np.float32)

    with pytest.raises(EmbeddingError, match=r"dimension 32.*expects dimension 16"):
        embed_query(Wide(dimension=16, model_id="wide-test"), "a question")
