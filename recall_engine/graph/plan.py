"""``GraphPlan``: a resolved extraction shaped into the rows and vectors the stores write."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from recall_engine.core.graph import Entity, Relation
from recall_engine.graph.resolution import Resolution
from recall_engine.graph.rules_relations import RELATED_TO
from recall_engine.storage.graph_records import (
    ENTITIES,
    EVENTS,
    RELATIONS,
    SUMMARIES,
    GraphWrite,
    SummaryRecord,
    VectorRows,
)


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
    known: dict[str, np.ndarray] = field(default_factory=dict)
    """Text -> vector for texts embedded already (new entities' in the draft)."""

    @property
    def texts(self) -> list[str]:
        """The texts to embed, once each: entity texts not known yet, refreshed
        entity texts, then relation texts. A co-mention relation embeds nothing:
        its sentence is all it says, so its chunk's vector stands for it."""
        wanted = [t for _, t in self.entity_texts] + [t for _, t in self.refresh_texts]
        relations = self.resolution.graph.relations
        wanted += [
            t
            for r, t in zip(relations, self.relation_texts, strict=True)
            if r.predicate != RELATED_TO
        ]
        return [t for t in dict.fromkeys(wanted) if t not in self.known]

    @staticmethod
    def _co_mention_vector(
        relation: Relation, chunk_vector: np.ndarray, entity_vectors: dict[str, np.ndarray]
    ) -> np.ndarray:
        """A co-mention's vector, composed without embedding anything: its chunk's
        vector plus the vectors of its two entities where this ingest has them."""
        ends = (relation.source_id, relation.target_id)
        return _centroid([chunk_vector, *(entity_vectors[i] for i in ends if i in entity_vectors)])

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
        dim = vectors.shape[1]
        ds = self.dataset_id
        lookup = dict(self.known)
        lookup.update(zip(self.texts, vectors, strict=True))
        entity_vectors = {
            e.id: lookup[text] for e in graph.entities if (text := e.embedding_text()) in lookup
        }

        def stack(texts: Iterable[str]) -> np.ndarray:
            return _stack([lookup[t] for t in texts], dim)

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
                stack(t for _, t in self.entity_texts),
            ),
            VectorRows(
                RELATIONS,
                relation_rows,
                _stack(
                    [
                        self._co_mention_vector(r, chunk_vectors[r.chunk_id], entity_vectors)
                        if r.predicate == RELATED_TO
                        else lookup[text]
                        for r, text in zip(graph.relations, self.relation_texts, strict=True)
                    ],
                    dim,
                ),
            ),
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
            stack(t for _, t in self.refresh_texts),
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
            new_entity_ids=frozenset(self.resolution.created_ids),
        )


def make_plan(
    dataset_id: str,
    resolution: Resolution,
    stored: dict[str, Entity],
    known: dict[str, np.ndarray],
) -> GraphPlan:
    """The plan of a resolved extraction: which entity and relation texts need vectors.

    Args:
        dataset_id: the dataset written to.
        resolution: the extraction resolved against the stored entities.
        stored: the stored entities the resolution may point at, by id.
        known: text -> vector for texts embedded already.

    Returns:
        The plan; ``GraphPlan.texts`` are the texts still to embed.
    """
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
    return GraphPlan(
        dataset_id, resolution, names, entity_texts, refresh_texts, relation_texts, known
    )


def _stack(rows: list[np.ndarray], dim: int) -> np.ndarray:
    if not rows:
        return np.zeros((0, dim), dtype=np.float32)
    return np.vstack(rows).astype(np.float32)


def _centroid(rows: list[np.ndarray]) -> np.ndarray:
    mean = np.mean(np.vstack(rows), axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)
