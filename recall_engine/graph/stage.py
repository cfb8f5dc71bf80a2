"""The graph stage of an ingest: extract, resolve, and shape what the stores write.

The pipeline starts ``start_extraction`` in a worker thread while the model
embeds the chunks, then calls ``plan_graph`` (resolution against the stored
entities of the dataset, found by name/alias/surname key) and embeds
``GraphPlan.texts`` in the same call as the last partial batch of chunks.
``GraphPlan.build`` turns the vectors into the ``GraphWrite`` the stores take.

What gets a vector of its own: entities (name, type, description) and
relations (``source predicate target: context``). An event reuses the vector
of the chunk that states it, and a summary the mean of its item's chunk
vectors, so neither costs an embedding.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from recall_engine.graph.extractor import ChunkInput, Extractor
from recall_engine.graph.model import ChunkExtraction, Entity
from recall_engine.graph.resolution import Resolution, resolve
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.storage.graph_records import (
    ENTITIES,
    EVENTS,
    RELATIONS,
    SUMMARIES,
    GraphWrite,
    SummaryRecord,
    VectorRows,
)
from recall_engine.storage.kuzu_graph_elements import lookup_keys

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig


def build_extractor(config: RecallConfig) -> Extractor | None:
    """The extractor ``config.graph_extractor`` names; None for ``"none"``.

    Raises:
        InvalidInputError: ``"llm"`` without an LLM configured.
    """
    if config.graph_extractor == "none":
        return None
    if config.graph_extractor == "rules":
        return RuleBasedExtractor()
    from recall_engine.graph.llm_extractor import LLMExtractor
    from recall_engine.llm.client import LLMClient
    from recall_engine.llm.config import LLMConfig

    return LLMExtractor(LLMClient(LLMConfig.from_recall_config(config)))


def parse_time(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def start_extraction(
    pool: ThreadPoolExecutor, extractor: Extractor, chunks: Sequence[ChunkInput]
) -> Future[tuple[list[ChunkExtraction], float]]:
    """Run the extractor in ``pool``; the future gives (extractions, seconds)."""

    def work() -> tuple[list[ChunkExtraction], float]:
        started = time.perf_counter()
        if isinstance(extractor, RuleBasedExtractor):
            out = extractor.extract_sync(chunks)
        else:  # an async extractor (the LLM one) gets its own event loop in this thread
            out = asyncio.run(extractor.extract(chunks))
        return out, time.perf_counter() - started

    return pool.submit(work)


@dataclass(frozen=True)
class GraphPlan:
    """A resolved extraction and the texts that still need vectors."""

    dataset_id: str
    resolution: Resolution
    names: dict[str, str]
    """Entity id -> display name, for every entity a relation may point at."""
    entity_texts: list[tuple[Entity, str]]
    refresh_texts: list[tuple[Entity, str]]
    relation_texts: list[str]

    @property
    def texts(self) -> list[str]:
        """Entity texts, then refreshed entity texts, then relation texts."""
        return (
            [t for _, t in self.entity_texts]
            + [t for _, t in self.refresh_texts]
            + self.relation_texts
        )

    @property
    def created_count(self) -> int:
        return len(self.resolution.created_ids)

    def build(
        self,
        vectors: np.ndarray,
        *,
        chunk_vectors: dict[str, np.ndarray],
        chunk_data: dict[str, str],
        summaries: Sequence[SummaryRecord],
    ) -> GraphWrite:
        """The write, given ``vectors`` for ``self.texts`` in order, every
        chunk's vector (events and summaries reuse them) and each chunk's item."""
        graph = self.resolution.graph
        n_ent, n_ref = len(self.entity_texts), len(self.refresh_texts)
        dim = vectors.shape[1]
        ds = self.dataset_id

        def entity_row(entity: Entity, text: str) -> dict[str, str]:
            return {
                "id": entity.id,
                "dataset_id": ds,
                "namespace": entity.namespace,
                "name": entity.name,
                "type": entity.type.value,
                "text": text,
            }

        relation_rows = [
            {
                "id": r.id,
                "dataset_id": ds,
                "namespace": r.namespace,
                "data_id": chunk_data[r.chunk_id],
                "chunk_id": r.chunk_id,
                "source_id": r.source_id,
                "target_id": r.target_id,
                "predicate": r.predicate,
                "text": text,
            }
            for r, text in zip(graph.relations, self.relation_texts, strict=True)
        ]
        event_rows = [
            {
                "id": e.id,
                "dataset_id": ds,
                "namespace": e.namespace,
                "data_id": chunk_data[e.chunk_id],
                "chunk_id": e.chunk_id,
                "time": e.time.isoformat(),
                "text": e.text,
            }
            for e in graph.events
        ]
        summary_rows = [
            {
                "id": s.id,
                "dataset_id": ds,
                "namespace": s.namespace,
                "data_id": s.data_id,
                "method": s.method,
                "text": s.text,
            }
            for s in summaries
        ]
        by_item: dict[str, list[np.ndarray]] = {}
        for chunk_id, data_id in chunk_data.items():
            by_item.setdefault(data_id, []).append(chunk_vectors[chunk_id])
        rows = (
            VectorRows(
                ENTITIES,
                [entity_row(e, t) for e, t in self.entity_texts],
                vectors[:n_ent],
            ),
            VectorRows(RELATIONS, relation_rows, vectors[n_ent + n_ref :]),
            VectorRows(
                EVENTS,
                event_rows,
                _stack([chunk_vectors[e.chunk_id] for e in graph.events], dim),
            ),
            VectorRows(
                SUMMARIES,
                summary_rows,
                _stack([_centroid(by_item[s.data_id]) for s in summaries], dim),
            ),
        )
        refresh = VectorRows(
            ENTITIES,
            [entity_row(e, t) for e, t in self.refresh_texts],
            vectors[n_ent : n_ent + n_ref],
        )
        return GraphWrite(
            dataset_id=ds,
            entities=graph.entities,
            relations=graph.relations,
            events=graph.events,
            mentions=graph.mentions,
            summaries=tuple(summaries),
            chunk_data=dict(chunk_data),
            vector_rows=rows,
            entity_refresh=refresh if refresh.rows else None,
        )


def plan_graph(
    extractions: Sequence[ChunkExtraction],
    *,
    dataset_id: str,
    candidates: Callable[[Sequence[str]], list[Entity]],
) -> GraphPlan:
    """Resolve ``extractions`` against the stored entities ``candidates(keys)``
    returns, and list the texts to embed: new entities, stored entities whose
    text changed, and every relation."""
    keys = sorted({k for x in extractions for e in x.entities for k in lookup_keys(e)})
    stored = {e.id: e for e in candidates(keys)} if keys else {}
    resolution = resolve(extractions, existing=stored.values())
    names = {e.id: e.name for e in stored.values()}
    names.update({e.id: e.name for e in resolution.graph.entities})
    created = set(resolution.created_ids)
    entity_texts, refresh_texts = [], []
    for entity in resolution.graph.entities:
        text = entity.embedding_text()
        if entity.id in created:
            entity_texts.append((entity, text))
        elif text != stored[entity.id].embedding_text():
            refresh_texts.append((entity, text))
    relation_texts = [
        r.embedding_text(names[r.source_id], names[r.target_id]) for r in resolution.graph.relations
    ]
    return GraphPlan(dataset_id, resolution, names, entity_texts, refresh_texts, relation_texts)


def _stack(rows: list[np.ndarray], dim: int) -> np.ndarray:
    if not rows:
        return np.zeros((0, dim), dtype=np.float32)
    return np.vstack(rows).astype(np.float32)


def _centroid(rows: list[np.ndarray]) -> np.ndarray:
    mean = np.mean(np.vstack(rows), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)
