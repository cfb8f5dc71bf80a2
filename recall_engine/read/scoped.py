"""``ScopedReader``: one tenant store and a dataset scope, and the conversions
from stored records to hits that every part of ``StoreReader`` shares.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Protocol, TypeVar

import numpy as np

from recall_engine.core.cells import Record
from recall_engine.core.hits import ChunkHit, EntityRef, TripletHit
from recall_engine.core.models import SourceRef
from recall_engine.read.filters import ChunkFilter
from recall_engine.storage.expiry import expiry_of
from recall_engine.storage.graph_reads import EdgeRecord
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.tenant import TenantStore
from recall_engine.storage.time_filter import to_epoch
from recall_engine.storage.vector_index import VectorIndex

DenseSearch = tuple[tuple[int, int], np.ndarray, int, list[tuple[ChunkRecord, float]]]

MAX_ENTITY_SOURCES = 8  # chunks cited per entity: its earliest mentions

MentionsOf = Callable[[list[str]], Awaitable[dict[str, list[str]]]]
"""Entity ids -> entity id -> ids of the chunks that mention it."""


class Stated(Protocol):
    """Something stated in one chunk (a relation, an edge)."""

    @property
    def chunk_id(self) -> str | None: ...


StatedT = TypeVar("StatedT", bound=Stated)
KeptT = TypeVar("KeptT")


class ScopedReader:
    """The tenant store, the scope (dataset ids, in the order given) and their names."""

    def __init__(
        self, store: TenantStore, dataset_ids: Sequence[str], *, where: ChunkFilter | None = None
    ) -> None:
        """``where``: a filter every chunk search of this reader honours (metadata
        equalities, expiry, a time bound); None: every chunk in scope."""
        self._store = store
        self._scope = tuple(dict.fromkeys(dataset_ids))
        self._names = store.datasets()
        self._where = where
        self._last_dense: DenseSearch | None = None
        """The last dense search (``ChunkReader._dense``): the index's (alive rows,
        rows) then, the vector, k and the found (record, score) pairs."""

    @property
    def tenant_id(self) -> str:
        return self._store.tenant_id

    @property
    def dataset_ids(self) -> tuple[str, ...]:
        return self._scope

    def _mask(self, where: ChunkFilter | None = None) -> np.ndarray:
        """Rows in scope that pass the reader's filter and ``where``; the caller holds
        the vector index's lock."""
        index = self._store.index
        mask = index.vectors.scope_mask(self._scope)
        wanted = where.and_(self._where) if where is not None else self._where
        if wanted is None:
            return mask
        if wanted.alive_at is not None:
            mask &= expiry_of(index) > wanted.alive_at
        if wanted.stated_by is not None:
            times = index.vectors.times(np.arange(mask.shape[0]))
            with np.errstate(invalid="ignore"):
                mask &= ~(times > wanted.stated_by)  # NaN (unknown time) passes
        if wanted.narrows:
            for at in np.flatnonzero(mask):
                if not wanted.matches(index.vectors.row(int(at)).metadata):
                    mask[at] = False
        return mask

    def _allows(self, record: ChunkRecord) -> bool:
        """The record passes the reader's filter."""
        return self._where is None or self._where.allows(record.metadata, stated=record.timestamp)

    def _passing(self, chunk_ids: Iterable[str | None]) -> set[str] | None:
        """The chunks among ``chunk_ids`` that pass the reader's filter, in scope; None
        when the reader has no filter. A fact or an edge stated in a chunk the filter
        excludes is excluded with it (else an answer read from facts or an entity's
        edges names what ``metadata_filters`` left out)."""
        if self._where is None:
            return None
        wanted = dict.fromkeys(c for c in chunk_ids if c)
        records = self._store.index.by_id(wanted, self._scope) if wanted else []
        return {r.id for r in records if self._allows(r)}

    def _stated_passing(self, items: list[StatedT]) -> list[StatedT]:
        """Those of ``items`` stated in a chunk the reader's filter passes (``_passing``),
        in order; all of them when the reader has no filter."""
        passing = self._passing(i.chunk_id for i in items)
        return items if passing is None else [i for i in items if i.chunk_id in passing]

    def _kept_mentions(self, mentions: Mapping[str, Sequence[str]]) -> dict[str, list[str]] | None:
        """Each entity's mentions (chunk ids, in order) in chunks the reader's filter
        passes; an entity with none is left out, as it was stated only where the caller
        may not look (or later than ``as_of``). None when the reader has no filter."""
        passing = self._passing(c for chunks in mentions.values() for c in chunks)
        if passing is None:
            return None
        kept = {e: [c for c in chunks if c in passing] for e, chunks in mentions.items()}
        return {e: chunks for e, chunks in kept.items() if chunks}

    async def _nearest_entities(
        self, vector: np.ndarray, k: int, mentions_of: MentionsOf
    ) -> tuple[list[tuple[Record, float]], dict[str, list[str]] | None]:
        """The ``k`` entities in scope nearest to ``vector``; with a filter, those
        mentioned in a chunk it passes (searching deeper until ``k`` are found or none
        are left), with those mentions (``_kept_mentions``; None without a filter)."""
        index = self._store.entity_index
        if self._where is None:
            return index.search(vector, k, self._scope), None
        depth = k
        while True:
            hits = index.search(vector, depth, self._scope)
            kept = self._kept_mentions(await mentions_of([row["id"] for row, _ in hits])) or {}
            found = [(row, score) for row, score in hits if row["id"] in kept]
            if len(found) >= k or len(hits) < depth:
                return found[:k], kept
            depth *= 4

    def _chunk_hit(self, record: ChunkRecord, score: float) -> ChunkHit:
        # Built unvalidated (``core.trusted``): a record's fields are typed already,
        # and validating the ~150 hits of a passage query cost more than its searches.
        return ChunkHit.trusted(
            score=float(score),
            sources=(record.source_ref(),),
            dataset_id=record.dataset_id,
            dataset_name=record.dataset_name,
            chunk_id=record.id,
            data_id=record.data_id,
            chunk_index=record.chunk_index,
            text=record.text,
            document_name=record.document_name,
            metadata=dict(record.metadata),
            message_ids=tuple(record.message_ids),
            speaker=record.speaker,
            timestamp=record.timestamp,
        )

    def _refs(self, chunk_ids: Sequence[str]) -> tuple[SourceRef, ...]:
        records = self._store.index.by_id(dict.fromkeys(chunk_ids), self._scope)
        return tuple(r.source_ref() for r in records)

    def _mention_refs(
        self, mentions: Mapping[str, Sequence[str]], entity_id: str
    ) -> tuple[SourceRef, ...]:
        return self._refs(list(mentions.get(entity_id, ()))[:MAX_ENTITY_SOURCES])

    def _triplet(self, edge: EdgeRecord, score: float) -> TripletHit:
        return TripletHit(
            score=score,
            sources=self._refs([edge.chunk_id] if edge.chunk_id else []),
            dataset_id=edge.dataset_id,
            dataset_name=self._names.get(edge.dataset_id),
            id=edge.id,
            source=EntityRef(id=edge.source_id, name=edge.source_name, type=edge.source_type),
            predicate=edge.predicate,
            target=EntityRef(id=edge.target_id, name=edge.target_name, type=edge.target_type),
            raw_predicate=edge.raw_predicate,
            context=edge.context,
            confidence=edge.confidence,
            time_text=edge.time_text,
            timestamp=edge.timestamp,
            chunk_id=edge.chunk_id,
            data_id=edge.data_id,
        )


RowT = TypeVar("RowT")


async def search_deeper(
    k: int, search: Callable[[int], Awaitable[tuple[int, list[KeptT]]]]
) -> list[KeptT]:
    """``search(depth)`` from depth ``k``, four times deeper each time, until it keeps
    ``k`` or its index has no more to give; what the last search kept (maybe more
    than ``k``). ``search`` returns how many hits the index gave and those of them it
    kept: a search whose filter drops the nearest still returns ``k`` when ``k`` pass."""
    depth = k
    while True:
        found, kept = await search(depth)
        if len(kept) >= k or found < depth:
            return kept
        depth *= 4


def latest_message_time(
    index: VectorIndex[ChunkRecord], scope: Sequence[str], *, within: np.ndarray | None = None
) -> datetime | None:
    """Newest first over the dated rows in scope (and in the row mask ``within``,
    when given): the time of the first that covers conversation messages."""
    with index.lock:
        times = index.times(np.arange(index.size))
        mask = index.scope_mask(scope)
        if within is not None:
            mask &= within[: mask.shape[0]]
        dated = np.flatnonzero(mask & ~np.isnan(times))
        for at in dated[np.argsort(-times[dated], kind="stable")]:
            if index.row(int(at)).message_ids:
                return datetime.fromtimestamp(float(times[at]), UTC).replace(tzinfo=None)
    return None


def in_time(
    index: VectorIndex[RowT],
    scope: Sequence[str],
    start: datetime,
    end: datetime,
    vector: np.ndarray | None,
    k: int,
    *,
    within: np.ndarray | None = None,
) -> list[tuple[RowT, float]]:
    """Rows of ``index`` in scope whose time is in [start, end): the ``k`` nearest
    to ``vector`` when given, else the first ``k`` in time order (score 1).
    ``within``: a boolean mask over the index's rows they must also be in (a
    reader's filter, ``ScopedReader._mask``)."""
    with index.lock:
        where = index.time_mask(to_epoch(start), to_epoch(end))
        if within is not None:
            where &= within[: where.shape[0]]
        if vector is not None:
            return index.search(vector, k, scope, where=where)
        rows = np.flatnonzero(where & index.scope_mask(scope))
        return [
            (index.row(at), 1.0) for at in rows[np.argsort(index.times(rows), kind="stable")][:k]
        ]
