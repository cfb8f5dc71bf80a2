"""``GraphReader``: graph elements by meaning or by name, and walks over the
stored graph (``read.api.GraphReads``), through the typed reads of ``GraphStore``
and the tenant's graph vector indexes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np

from recall_engine.core.cells import Record
from recall_engine.core.graph import normalize_name
from recall_engine.core.hits import EntityHit, EventHit, SummaryHit, TripletHit
from recall_engine.read.adjacency import current_adjacency, fill_records, wants_all_records
from recall_engine.read.api import GraphPath
from recall_engine.read.scoped import MAX_ENTITY_SOURCES, ScopedReader, in_time, search_deeper
from recall_engine.read.summary_view import lead_of, score_by
from recall_engine.storage.graph_reads import EdgeRecord
from recall_engine.storage.graph_records import SUMMARY_METHOD


class GraphReader(ScopedReader):
    """Entities, relations, summaries and events within the scope."""

    async def _mention_chunks(self, entity_ids: list[str]) -> dict[str, list[str]]:
        """Entity id -> the chunks that mention it, in chunk order (the graph's)."""
        found = await asyncio.to_thread(self._store.graph.mention_chunks, entity_ids)
        return {e: [chunk for chunk, _ in pairs] for e, pairs in found.items()}

    async def nearest_entities(self, vector: np.ndarray, k: int) -> list[EntityHit]:
        hits, mentions = await self._nearest_entities(vector, k, self._mention_chunks)
        if not hits:
            return []
        if mentions is None:
            mentions = await self._mention_chunks([row["id"] for row, _ in hits])
        return [
            EntityHit(
                score=score,
                sources=self._mention_refs(mentions, row["id"]),
                dataset_id=row["dataset_id"],
                dataset_name=self._names.get(row["dataset_id"]),
                id=row["id"],
                name=row["name"],
                type=row["type"],
            )
            for row, score in hits
        ]

    async def nearest_triplets(self, vector: np.ndarray, k: int) -> list[TripletHit]:
        score_of: dict[str, float] = {}

        async def search(depth: int) -> tuple[int, list[EdgeRecord]]:
            hits = self._store.relation_index.search(vector, depth, self._scope)
            score_of.update((row["id"], score) for row, score in hits)
            if not hits:
                return 0, []
            graph = self._store.graph
            ids = list(dict.fromkeys(row["id"] for row, _ in hits))
            found = await asyncio.to_thread(graph.edges_by_id, ids, self._scope)
            return len(hits), self._stated_passing(found)

        # without a filter, one search: a relation the graph no longer holds is not
        # one the filter dropped
        kept = (await search(k))[1] if self._where is None else await search_deeper(k, search)
        edges = [self._triplet(edge, score_of[edge.id]) for edge in kept]
        return sorted(edges, key=lambda e: (-e.score, e.id))[:k]

    async def nearest_summaries(self, vector: np.ndarray, k: int) -> list[SummaryHit]:
        async def search(depth: int) -> tuple[int, list[SummaryHit]]:
            hits = self._store.summary_index.search(vector, depth, self._scope)
            found = (self._summary(row, score, vector) for row, score in hits)
            return len(hits), [s for s in found if s is not None]

        found = await search_deeper(k, search)
        if self._where is not None:  # a rebuilt summary is scored by what it restates
            found.sort(key=lambda s: -s.score)
        return found[:k]

    def _summary(self, row: Record, score: float, vector: np.ndarray) -> SummaryHit | None:
        """The summary of a data item, citing its first chunks. With a filter: None
        when it passes no chunk of the item (stated only where the caller may not
        look, or later than ``as_of``); when it passes only some, rebuilt from those
        (``read.summary_view``), citing and scored by them."""
        chunks = self._store.index.of_data(row["data_id"])
        text, method = row["text"], row.get("method") or ""
        if self._where is not None:
            passing = [c for c in chunks if self._allows(c)]
            if not passing:
                return None
            if len(passing) < len(chunks):
                chunks, text, method = passing, lead_of(passing), SUMMARY_METHOD
                cited = [c.id for c in chunks[:MAX_ENTITY_SOURCES]]
                vectors = self._store.index.vectors.vectors_of(cited, self._scope)
                score = score_by(vector, list(vectors.values()))
        return SummaryHit(
            score=score,
            sources=tuple(c.source_ref() for c in chunks[:MAX_ENTITY_SOURCES]),
            dataset_id=row["dataset_id"],
            dataset_name=self._names.get(row["dataset_id"]),
            id=row["id"],
            data_id=row["data_id"],
            text=text,
            method=method,
        )

    def _event_hit(self, row: Record, score: float) -> EventHit:
        return EventHit(
            score=score,
            sources=self._refs([row["chunk_id"]]),
            dataset_id=row["dataset_id"],
            dataset_name=self._names.get(row["dataset_id"]),
            id=row["id"],
            text=row["text"],
            time=row.get("time"),
            chunk_id=row["chunk_id"],
            data_id=row.get("data_id"),
        )

    async def nearest_events(self, vector: np.ndarray, k: int) -> list[EventHit]:
        def search(depth: int) -> list[tuple[Record, float]]:
            return self._store.event_index.search(vector, depth, self._scope)

        return [self._event_hit(row, score) for row, score in await self._events(k, search)]

    async def events_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[EventHit]:
        def search(depth: int) -> list[tuple[Record, float]]:
            return in_time(self._store.event_index, self._scope, start, end, vector, depth)

        return [self._event_hit(row, score) for row, score in await self._events(k, search)]

    async def _events(
        self, k: int, search: Callable[[int], list[tuple[Record, float]]]
    ) -> list[tuple[Record, float]]:
        """The first ``k`` event rows ``search(depth)`` finds; with a filter, the first
        ``k`` stated in a chunk it passes (``_passing``), searching deeper while it
        drops some: an event stated in another team's notes, or later than ``as_of``
        (whatever time it happened at), is none of the reader's."""

        async def kept(depth: int) -> tuple[int, list[tuple[Record, float]]]:
            hits = search(depth)
            passing = self._passing(row["chunk_id"] for row, _ in hits)
            if passing is None:
                return len(hits), hits
            return len(hits), [(row, s) for row, s in hits if row["chunk_id"] in passing]

        return (await search_deeper(k, kept))[:k]

    async def entities_by_name(self, names: Sequence[str]) -> list[EntityHit]:
        keys = sorted({normalize_name(n) for n in names if n and n.strip()} - {""})
        if not keys:
            return []
        graph = self._store.graph
        found = await asyncio.to_thread(graph.entities_by_keys, keys, self._scope)
        mentions = await self._mention_chunks([e.id for e in found])
        kept = self._kept_mentions(mentions)
        if kept is not None:  # an entity stated only where the filter excludes is none
            found, mentions = [e for e in found if e.id in kept], kept
        return [
            EntityHit(
                score=1.0,
                sources=self._mention_refs(mentions, e.id),
                dataset_id=e.dataset_id,
                dataset_name=self._names.get(e.dataset_id),
                id=e.id,
                name=e.name,
                type=e.type,
                description=e.description,
                aliases=e.aliases,
            )
            for e in found
        ]

    # walks over the stored graph

    async def _edges_touching(self, entity_ids: Sequence[str]) -> list[EdgeRecord]:
        graph = self._store.graph
        return await asyncio.to_thread(graph.edges_touching, list(entity_ids), self._scope)

    async def paths(
        self, sources: Sequence[str], targets: Sequence[str], *, max_length: int = 3
    ) -> list[GraphPath]:
        goal = set(targets)
        parents: dict[str, tuple[str, TripletHit] | None] = {s: None for s in sources}
        frontier = list(dict.fromkeys(sources))
        found: list[str] = [s for s in frontier if s in goal]
        for _ in range(max_length):
            if found or not frontier:
                break
            reached: list[str] = []
            frontier_set = set(frontier)
            for record in self._stated_passing(await self._edges_touching(frontier)):
                edge = self._triplet(record, 1.0)
                ends = (record.source_id, record.target_id)
                for here, there in (ends, ends[::-1]):
                    if here in frontier_set and there not in parents:
                        parents[there] = (here, edge)
                        reached.append(there)
            found = [n for n in reached if n in goal]
            frontier = reached
        out = []
        for end in found:
            edges: list[TripletHit] = []
            walk = [end]
            step = parents[end]
            while step is not None:
                previous, edge = step
                edges.append(edge)
                walk.append(previous)
                step = parents[previous]
            out.append(GraphPath(edges=tuple(reversed(edges)), entity_ids=tuple(reversed(walk))))
        return out

    async def triplets_by_id(self, relation_ids: Sequence[str]) -> list[TripletHit]:
        ids = list(dict.fromkeys(relation_ids))
        if not ids:
            return []
        edges = self._stated_passing(await self._edge_records(ids))
        found = {edge.id: self._triplet(edge, 0.0) for edge in edges}
        return [found[i] for i in ids if i in found]

    async def _edge_records(self, ids: list[str]) -> list[EdgeRecord]:
        """These relations in scope, read from the graph once per structure snapshot
        (``Adjacency.records``; a Kuzu read of a few relations scans the relation
        table) when one is current, all at once after a few reads
        (``read.adjacency.PARTIAL_READS``), else from the graph."""
        graph, scope = self._store.graph, self._scope
        snapshot = current_adjacency(self._store)
        if snapshot is None:
            return await asyncio.to_thread(graph.edges_by_id, ids, scope)
        known = snapshot.records
        missing = [i for i in ids if i not in known]
        if missing and wants_all_records(snapshot):
            await asyncio.to_thread(fill_records, self._store, snapshot)
        if snapshot.complete:  # only what the snapshot does not know is left to read
            missing = [i for i in missing if i not in known and i not in snapshot.edges]
        if missing:
            for edge in await asyncio.to_thread(graph.edges_by_id, missing, scope):
                known[edge.id] = edge
        allowed = set(scope)
        return [known[i] for i in ids if i in known and known[i].dataset_id in allowed]

    async def chunk_relations(self, chunk_ids: Sequence[str]) -> dict[str, list[TripletHit]]:
        """Chunk id -> the relations extracted from that chunk (in scope, and passing
        the reader's filter), by id; score = the relation's confidence (1 when it has
        none)."""
        wanted = list(dict.fromkeys(chunk_ids))
        passing = self._passing(wanted)
        if passing is not None:
            wanted = [c for c in wanted if c in passing]
        if not wanted:
            return {}
        graph = self._store.graph
        edges = await asyncio.to_thread(graph.edges_in_chunks, wanted, self._scope)
        out: dict[str, list[TripletHit]] = {}
        for edge in edges:
            score = float(edge.confidence or 1.0)
            out.setdefault(edge.chunk_id or "", []).append(self._triplet(edge, score))
        return out
