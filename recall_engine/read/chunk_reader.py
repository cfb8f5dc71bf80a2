"""``ChunkReader``: the ``ChunkReads`` of ``StoreReader``, on the tenant's
in-memory chunk index (dense, BM25, by id with neighbours, by time, by title,
by node set)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import cast

import numpy as np

from recall_engine.core.hits import ChunkHit
from recall_engine.ingest.node_sets import NODE_SET_KEY
from recall_engine.read.api import ChunkPlace
from recall_engine.read.scoped import ScopedReader, in_time, latest_message_time
from recall_engine.read.speakers import speakers
from recall_engine.read.titles import current_title_index, named_in, title_index
from recall_engine.storage.lexical import tokenize
from recall_engine.storage.records import ChunkRecord


class ChunkReader(ScopedReader):
    """Chunk searches within the scope (see ``read.api.ChunkReads``)."""

    async def dense_chunks(self, vector: np.ndarray, k: int) -> list[ChunkHit]:
        return [self._chunk_hit(r, s) for r, s in self._dense(vector, k)]

    async def dense_places(self, vector: np.ndarray, k: int) -> list[ChunkPlace]:
        return [_place(r, s) for r, s in self._dense(vector, k)]

    async def lexical_chunks(self, query: str, k: int) -> list[ChunkHit]:
        return [self._chunk_hit(r, s) for r, s in self._lexical(query, k)]

    async def lexical_places(self, query: str, k: int) -> list[ChunkPlace]:
        return [_place(r, s) for r, s in self._lexical(query, k)]

    def _dense(self, vector: np.ndarray, k: int) -> list[tuple[ChunkRecord, float]]:
        """The ``k`` best chunks by dense score. The last search is kept: the same
        vector asked again for as many or fewer (recall's coverage stage asks the best
        similarity after a retriever searched with the query's vector) reads it
        instead of scoring every chunk again, while the index is unchanged."""
        index = self._store.index
        query = np.asarray(vector, dtype=np.float32).ravel()
        with index.vectors.lock:
            state = (len(index.vectors), index.vectors.size)
            last = self._last_dense
            if last and last[0] == state and last[2] >= k and np.array_equal(last[1], query):
                return last[3][:k]
            scope, where = self._search_scope()
            found = index.search_dense(query, k, scope, where=where)
            self._last_dense = (state, query.copy(), k, found)
            return found

    def _lexical(self, query: str, k: int) -> list[tuple[ChunkRecord, float]]:
        index = self._store.index
        with index.vectors.lock:
            scope, where = self._search_scope()
            return index.search_lexical(tokenize(query), k, scope, where=where)

    def _search_scope(self) -> tuple[tuple[str, ...] | None, np.ndarray | None]:
        """The (datasets, row mask) a search takes: the scope alone, or with a filter
        its mask, which holds the scope already (so it is not computed twice)."""
        return (self._scope, None) if self._where is None else (None, self._mask())

    async def chunks_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkHit]:
        return [self._chunk_hit(r, s) for r, s in self._around(chunk_ids, neighbours)]

    async def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        index = self._store.index
        allowed = [
            r.id for r in index.by_id(dict.fromkeys(chunk_ids), self._scope) if self._allows(r)
        ]
        return index.vectors.vectors_of(allowed, self._scope)

    async def places_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkPlace]:
        return [_place(r, s) for r, s in self._around(chunk_ids, neighbours)]

    def _around(
        self, chunk_ids: Sequence[str], neighbours: int
    ) -> Iterator[tuple[ChunkRecord, float]]:
        """Each chunk asked (score 1), then its allowed neighbours within ``neighbours``
        places in its data item (score 1 / (1 + distance)); each chunk once."""
        index = self._store.index
        seen: set[str] = set()
        for record in index.by_id(dict.fromkeys(chunk_ids), self._scope):
            if not self._allows(record):
                continue
            if record.id not in seen:
                seen.add(record.id)
                yield record, 1.0
            if neighbours <= 0:
                continue
            siblings, place = index.siblings(record.data_id)
            at = place.get(record.id)
            if at is None:  # removed since it was read
                continue
            for other in siblings[max(0, at - neighbours) : at + neighbours + 1]:
                if other.id in seen or not self._allows(other):
                    continue
                seen.add(other.id)
                yield other, 1.0 / (1 + abs(other.chunk_index - record.chunk_index))

    async def chunks_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[ChunkHit]:
        index = self._store.index.vectors
        with index.lock:  # the filter masks the rows inside the search: k come back
            within = None if self._where is None else self._mask()
            found = in_time(index, self._scope, start, end, vector, k, within=within)
        return [self._chunk_hit(r, s) for r, s in found]

    async def latest_message_time(self) -> datetime | None:
        index = self._store.index.vectors
        if self._where is None:
            return await asyncio.to_thread(latest_message_time, index, self._scope)

        def latest() -> datetime | None:
            with index.lock:
                return latest_message_time(index, self._scope, within=self._mask())

        return await asyncio.to_thread(latest)

    async def speakers(self) -> frozenset[str]:
        if self._where is None:
            return speakers(self._store, self._scope)
        return await asyncio.to_thread(self._passing_speakers)

    def _passing_speakers(self) -> frozenset[str]:
        """The speakers of the chunks in scope that the reader's filter passes."""
        index = self._store.index.vectors
        with index.lock:
            rows = (index.row(int(at)) for at in np.flatnonzero(self._mask()))
            return frozenset(row.speaker for row in rows if row.speaker)

    async def titled_chunks(self, text: str, k: int) -> list[ChunkHit]:
        # Built once per store change; a thread hop only when it must be (re)built.
        titles = current_title_index(self._store)
        if titles is None:
            titles = await asyncio.to_thread(title_index, self._store)
        scope = set(self._scope)
        out: list[ChunkHit] = []
        for _, data_ids in named_in(text, titles):
            for data_id in data_ids:
                for record in self._store.index.of_data(data_id):
                    if record.dataset_id in scope and self._allows(record):
                        out.append(self._chunk_hit(record, 1.0))
                    if len(out) >= k:
                        return out
        return out

    async def chunks_in_node_sets(
        self,
        node_sets: Sequence[str],
        *,
        vector: np.ndarray | None = None,
        k: int = 100,
        match_all: bool = False,
    ) -> list[ChunkHit]:
        wanted = {name for name in node_sets if name}
        if not wanted or k <= 0:
            return []
        index = self._store.index.vectors
        with index.lock:
            where = np.zeros(index.size, dtype=bool)
            for at in np.flatnonzero(index.scope_mask(self._scope)):
                row_sets = index.row(int(at)).metadata.get(NODE_SET_KEY) or ()
                sets = set(cast("Iterable[str]", row_sets))
                where[at] = wanted <= sets if match_all else bool(wanted & sets)
            if self._where is not None:  # masked inside the search: k come back
                where &= self._mask()
            if vector is not None:
                found = index.search(vector, k, self._scope, where=where)
            else:
                found = [(index.row(int(at)), 1.0) for at in np.flatnonzero(where)[:k]]
        return [self._chunk_hit(r, float(score)) for r, score in found]


def _place(record: ChunkRecord, score: float) -> ChunkPlace:
    return ChunkPlace(record.id, record.data_id, record.chunk_index, float(score))
