"""CHUNKS: dense retrieval over chunk embeddings (exact cosine similarity)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import ContextItem, RetrievalContext, RetrieverConfig, RetrieverOutput


class ChunksConfig(RetrieverConfig):
    min_score: float = Field(default=-1.0, ge=-1.0, le=1.0, description="Drop chunks below this.")


class ChunksRetriever:
    """The chunks whose embeddings are closest to the query's."""

    search_type: ClassVar[SearchType] = SearchType.CHUNKS
    kind: ClassVar[str] = "chunk"
    produces_answer: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = ChunksConfig

    async def retrieve(self, query: str, ctx: RetrievalContext) -> RetrieverOutput:
        options = ctx.options if isinstance(ctx.options, ChunksConfig) else ChunksConfig()
        vector = await asyncio.to_thread(ctx.embedder.embed, [query], batch_size=1)
        hits = ctx.store.index.search_dense(vector[0], ctx.top_k, ctx.dataset_ids)
        items = [
            chunk_item(record, score, kind="chunk")
            for record, score in hits
            if score >= options.min_score
        ]
        return RetrieverOutput(items=items, details={"scoring": "cosine"})


def chunk_item(record, score: float, *, kind: str) -> ContextItem:  # type: ignore[no-untyped-def]
    """A chunk record as a context item with its provenance."""
    return ContextItem(
        text=record.text,
        score=score,
        kind=kind,
        sources=[record.source_ref()],
        dataset_id=record.dataset_id,
        dataset_name=record.dataset_name,
        metadata=record.payload(),
        raw=record.payload(),
    )
