"""What one ingest writes into the graph, and the vector rows that make it searchable.

The pipeline builds a ``GraphWrite`` from resolved extractions; ``KuzuGraphStore``
writes its graph part inside the ingest's transaction and ``LanceVectorStore``
its ``vector_rows`` just before, like chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from recall_engine.core.cells import Record
from recall_engine.core.graph import Entity, Event, Mention, Relation

ENTITIES = "entities"
RELATIONS = "relations"
EVENTS = "events"
SUMMARIES = "summaries"
GRAPH_TABLES = (ENTITIES, RELATIONS, EVENTS, SUMMARIES)

SUMMARY_METHOD = "extractive-lead"
"""Summaries written without an LLM are the item's leading sentences, not a rewrite."""


@dataclass(frozen=True)
class SummaryRecord:
    """One summary of one data item."""

    id: str
    data_id: str
    dataset_id: str
    namespace: str
    text: str
    method: str = SUMMARY_METHOD


@dataclass(frozen=True)
class VectorRows:
    """Rows of one LanceDB graph table: ``rows[i]`` (without vector) and ``vectors[i]``."""

    table: str
    rows: list[Record]
    vectors: np.ndarray

    def __post_init__(self) -> None:
        if len(self.rows) != len(self.vectors):
            raise ValueError(f"{self.table}: {len(self.rows)} rows but {len(self.vectors)} vectors")


@dataclass(frozen=True)
class GraphWrite:
    """The graph part of one ingest, all in one dataset.

    ``entities`` are upserted (new ones and stored ones that changed: aliases,
    seen range, type); relations, events, mentions and summaries are new.
    ``chunk_data`` maps each chunk id of the ingest to its data item id.
    """

    dataset_id: str
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    mentions: tuple[Mention, ...] = ()
    summaries: tuple[SummaryRecord, ...] = ()
    chunk_data: dict[str, str] = field(default_factory=dict)
    vector_rows: tuple[VectorRows, ...] = ()
    """Rows of new elements, written before the Kuzu commit (undone if it fails)."""
    entity_refresh: VectorRows | None = None
    """New rows for stored entities whose text changed, swapped in after the commit."""
    new_entity_ids: frozenset[str] = frozenset()
    """The ``entities`` that are not stored yet (inserted in bulk); the rest are updated."""


@dataclass(frozen=True)
class GraphRemoval:
    """What a deletion took out of the graph, so the vector side can follow."""

    data_ids: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()
