"""The graph stage of an ingest: extract, resolve, and shape what the stores write.

The pipeline starts ``start_extraction`` in a worker thread while the model
embeds the chunks, then:

1. ``draft_graph`` promotes the extractor's set-aside sentence-initial words
   that name an entity the dataset knows, and resolves by name rules against
   the stored entities of the dataset found by name/alias/surname key;
2. the texts of the new entities (``GraphDraft.texts``) are embedded in the
   same call as the last partial batch of chunks;
3. ``GraphDraft.plan`` looks up, for each new entity, the nearest stored
   entities of its dataset and type (``NearestFn``, the in-memory entity
   vectors), resolves again with embedding similarity, and lists the texts that
   still need vectors (relations, changed entities): one more embedding call;
4. ``named_ends.settle`` gives each "left <Name>" the family its value's type
   names, now that resolution knows the value;
5. ``GraphPlan.build`` turns the vectors into the ``GraphWrite`` the stores take.

What gets a vector of its own: entities (name, type, description) and
relations (``source predicate target: context``), each embedded once. An event
reuses the vector of the chunk that states it, and a summary the mean of its
item's chunk vectors, so neither costs an embedding.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.graph import (
    IDENTIFIER_TYPES,
    ChunkExtraction,
    Entity,
    EntityType,
    lookup_keys,
)
from recall_engine.core.names import normalize_name
from recall_engine.graph import named_ends
from recall_engine.graph.extractor import ChunkInput, Extractor
from recall_engine.graph.plan import GraphPlan, make_plan
from recall_engine.graph.resolution import DEFAULT_SIMILARITY_THRESHOLD, Resolution, resolve
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.telemetry.spans import stage

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


def parse_time(value: str | None, *, what: str = "timestamp") -> datetime | None:
    """An ISO 8601 time, or None for no time.

    Raises:
        InvalidInputError: ``value`` is not ISO 8601 (never silently None).
    """
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(
            f"{what}: {value!r} is not an ISO 8601 time (e.g. 2023-05-08T13:56:00)"
        ) from None


def start_extraction(
    pool: ThreadPoolExecutor, extractor: Extractor, chunks: Sequence[ChunkInput]
) -> Future[tuple[list[ChunkExtraction], float]]:
    """Run the extractor in ``pool``; the future gives (extractions, seconds)."""

    def work() -> tuple[list[ChunkExtraction], float]:
        started = time.perf_counter()
        with stage("remember.extraction"):
            if isinstance(extractor, RuleBasedExtractor):
                out = extractor.extract_sync(chunks)
            else:  # an async extractor (the LLM one) gets its own event loop in this thread
                out = asyncio.run(extractor.extract(chunks))
        return out, time.perf_counter() - started

    # the caller's context (its remember span) goes with the work into the pool's thread
    return pool.submit(contextvars.copy_context().run, work)


NearestFn = Callable[[np.ndarray, Sequence[str]], list[tuple[dict[str, object], np.ndarray]]]
"""(vectors of new entities, their types) -> stored entities of the dataset, of
the same type, at least as similar as the threshold: rows with ``id`` and
``name``, each with its vector (``VectorIndex.nearest``)."""

NEAREST_K = 5
"""Stored neighbours looked at per new entity."""


@dataclass(frozen=True)
class GraphDraft:
    """Extractions resolved by the name rules; ``texts`` are the new entities'."""

    dataset_id: str
    resolution: Resolution
    stored: dict[str, Entity]
    candidates: Callable[[Sequence[str]], list[Entity]]

    @property
    def new_entities(self) -> list[Entity]:
        created = set(self.resolution.created_ids)
        return [e for e in self.resolution.graph.entities if e.id in created]

    @property
    def texts(self) -> list[str]:
        return [e.embedding_text() for e in self.new_entities]

    def plan(
        self,
        vectors: np.ndarray,
        *,
        nearest: NearestFn | None = None,
        similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
    ) -> GraphPlan:
        """Resolve again with embedding similarity, given ``vectors`` for
        ``self.texts``: new entities against each other and against the stored
        entities ``nearest`` finds. Without ``nearest`` the draft stands."""
        new = self.new_entities
        known = dict(zip(self.texts, vectors, strict=True))
        resolution, stored = self.resolution, self.stored
        if nearest is not None and new:
            by_id = {e.id: v for e, v in zip(new, vectors, strict=True)}
            asking = [e for e in new if e.type not in IDENTIFIER_TYPES]
            rows = (
                nearest(np.vstack([by_id[e.id] for e in asking]), [e.type.value for e in asking])
                if asking
                else []
            )
            stored = {**stored, **self._fetch(rows)}
            by_id.update({row["id"]: v for row, v in rows if row["id"] in stored})
            again = resolve(
                resolution.graph,
                existing=stored.values(),
                vectors=by_id,
                similarity_threshold=similarity_threshold,
            )
            id_map = {k: again.id_map.get(v, v) for k, v in resolution.id_map.items()}
            resolution = again.model_copy(update={"id_map": {**again.id_map, **id_map}})
        return make_plan(self.dataset_id, named_ends.settle(resolution, stored), stored, known)

    def _fetch(self, rows: list[tuple[dict[str, object], np.ndarray]]) -> dict[str, Entity]:
        wanted = {row["id"] for row, _ in rows} - self.stored.keys()
        if not wanted:
            return {}
        keys = sorted({normalize_name(str(row["name"])) for row, _ in rows if row["id"] in wanted})
        return {e.id: e for e in self.candidates(keys) if e.id in wanted}


def draft_graph(
    extractions: Sequence[ChunkExtraction],
    *,
    dataset_id: str,
    candidates: Callable[[Sequence[str]], list[Entity]],
) -> GraphDraft:
    """Promote set-aside names the dataset knows, and resolve ``extractions`` by
    the name rules against the stored entities ``candidates(keys)`` returns."""
    keys = {k for x in extractions for e in x.entities for k in lookup_keys(e)}
    keys |= {c.entity.normalized_name for x in extractions for c in x.candidates}
    stored = {e.id: e for e in candidates(sorted(keys))} if keys else {}
    extractions = promote_candidates(extractions, known=stored.values())
    resolution = resolve(extractions, existing=stored.values())
    return GraphDraft(dataset_id, resolution, stored, candidates)


def promote_candidates(
    extractions: Sequence[ChunkExtraction], *, known: Iterable[Entity] = ()
) -> list[ChunkExtraction]:
    """Make each set-aside sentence-initial word a mention when it names an
    entity of these extractions or of ``known`` (the dataset's): the surname of
    a person ("Lovelace's notes" after "Ada Lovelace"), or the one-word name of
    an entity of a specific type. CONCEPTs do not count, so a word like
    "Painting" never spreads. Resolution then folds the mention into that entity."""
    if not any(x.candidates for x in extractions):
        return list(extractions)
    names = _claimable_names([*known, *(e for x in extractions for e in x.entities)])
    out = []
    for x in extractions:
        promoted = [c for c in x.candidates if c.entity.normalized_name in names]
        if not promoted:
            out.append(x)
            continue
        entity_ids = {e.id for e in x.entities}
        out.append(
            x.model_copy(
                update={
                    "entities": x.entities
                    + tuple(c.entity for c in promoted if c.entity.id not in entity_ids),
                    "mentions": x.mentions + tuple(c.mention for c in promoted),
                }
            )
        )
    return out


def _claimable_names(entities: Iterable[Entity]) -> set[str]:
    names = set()
    for e in entities:
        if e.type is EntityType.CONCEPT or e.type in IDENTIFIER_TYPES:
            continue
        tokens = e.normalized_name.split()
        if len(tokens) == 1:
            names.add(tokens[0])
        elif e.type is EntityType.PERSON:
            names.add(tokens[-1])
    return names
