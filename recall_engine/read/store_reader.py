"""``StoreReader``: the read API over one tenant's Kuzu graph and LanceDB mirrors.

Vector and BM25 searches run on the tenant store's in-memory indexes; graph
structure (neighbourhoods, paths, entity names, edge details) comes from Kuzu
on its read connection. Everything is filtered to the reader's dataset scope,
and blocking work runs in a worker thread so the event loop stays free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.graph import normalize_name
from recall_engine.core.hits import (
    ChunkHit,
    EntityHit,
    EntityRef,
    EventHit,
    SummaryHit,
    TripletHit,
)
from recall_engine.core.models import SourceRef
from recall_engine.ingest.node_sets import NODE_SET_KEY
from recall_engine.read.adjacency import Adjacency, Edge, adjacency
from recall_engine.read.api import CypherResult, GraphEdge, GraphPath
from recall_engine.read.titles import current_title_index, named_in, title_index
from recall_engine.storage.kuzu_readonly import MAX_ROWS
from recall_engine.storage.lexical import tokenize
from recall_engine.storage.records import ChunkRecord
from recall_engine.storage.tenant import TenantStore
from recall_engine.storage.time_filter import to_epoch
from recall_engine.storage.vector_index import VectorIndex

MAX_ENTITY_SOURCES = 8  # chunks cited per entity: its earliest mentions
_EDGE_RETURN = (
    "r.id, a.id, a.name, a.type, b.id, b.name, b.type, r.predicate, r.raw_predicate, "
    "r.context, r.confidence, r.time_text, r.timestamp, r.chunk_id, r.data_id, r.dataset_id"
)


def rrf(lists: Sequence[Sequence[Any]], key: Any, *, k: int = 60) -> list[tuple[Any, float]]:
    """Reciprocal-rank fusion: items of several ranked lists, by summed 1/(k + rank)."""
    scores: dict[Any, float] = {}
    first: dict[Any, Any] = {}
    for ranked in lists:
        for rank, item in enumerate(ranked, start=1):
            ident = key(item)
            scores[ident] = scores.get(ident, 0.0) + 1.0 / (k + rank)
            first.setdefault(ident, item)
    order = sorted(scores, key=lambda i: -scores[i])
    return [(first[i], scores[i]) for i in order]


class StoreReader:
    """A read-only, scoped view of one tenant store (implements ``ReadAPI``)."""

    def __init__(self, store: TenantStore, dataset_ids: Sequence[str]) -> None:
        self._store = store
        self._scope = tuple(dict.fromkeys(dataset_ids))
        self._names = store.datasets()

    @property
    def tenant_id(self) -> str:
        return self._store.tenant_id

    @property
    def dataset_ids(self) -> tuple[str, ...]:
        return self._scope

    # conversions

    def _chunk_hit(self, record: ChunkRecord, score: float) -> ChunkHit:
        return ChunkHit(
            score=score,
            sources=(record.source_ref(),),
            dataset_id=record.dataset_id,
            dataset_name=record.dataset_name,
            chunk_id=record.id,
            data_id=record.data_id,
            chunk_index=record.chunk_index,
            text=record.text,
            document_name=record.document_name,
            metadata=dict(record.metadata),
            message_ids=record.message_ids,
            speaker=record.speaker,
            timestamp=record.timestamp,
        )

    def _refs(self, chunk_ids: Sequence[str]) -> tuple[SourceRef, ...]:
        records = self._store.index.by_id(dict.fromkeys(chunk_ids), self._scope)
        return tuple(r.source_ref() for r in records)

    def _mention_refs(
        self, mentions: dict[str, list[tuple[str, str]]], entity_id: str
    ) -> tuple[SourceRef, ...]:
        return self._refs([c for c, _ in mentions.get(entity_id, [])][:MAX_ENTITY_SOURCES])

    def _edge(self, row: Sequence[Any], score: float) -> TripletHit:
        (rid, aid, aname, atype, bid, bname, btype, pred, raw, context, conf, time_text,
         stamp, chunk_id, data_id, dataset_id) = row  # fmt: skip
        return TripletHit(
            score=score,
            sources=self._refs([chunk_id] if chunk_id else []),
            dataset_id=dataset_id,
            dataset_name=self._names.get(dataset_id),
            id=rid,
            source=EntityRef(id=aid, name=aname, type=atype),
            predicate=pred,
            target=EntityRef(id=bid, name=bname, type=btype),
            raw_predicate=raw,
            context=context or "",
            confidence=conf,
            time_text=time_text,
            timestamp=stamp,
            chunk_id=chunk_id,
            data_id=data_id,
        )

    # chunks

    async def dense_chunks(self, vector: np.ndarray, k: int) -> list[ChunkHit]:
        hits = self._store.index.search_dense(vector, k, self._scope)
        return [self._chunk_hit(r, s) for r, s in hits]

    async def lexical_chunks(self, query: str, k: int) -> list[ChunkHit]:
        hits = self._store.index.search_lexical(tokenize(query), k, self._scope)
        return [self._chunk_hit(r, s) for r, s in hits]

    async def fused_chunks(
        self, vector: np.ndarray, query: str, k: int, *, depth: int = 50, rrf_k: int = 60
    ) -> list[ChunkHit]:
        depth = max(depth, k)
        dense = self._store.index.search_dense(vector, depth, self._scope)
        lexical = self._store.index.search_lexical(tokenize(query), depth, self._scope)
        fused = rrf([[r for r, _ in dense], [r for r, _ in lexical]], lambda r: r.id, k=rrf_k)
        return [self._chunk_hit(r, s) for r, s in fused[:k]]

    async def chunks_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkHit]:
        index = self._store.index
        out: dict[str, ChunkHit] = {}
        # One sorted sibling list (and position map) per data item, not per chunk.
        items: dict[str, tuple[list[ChunkRecord], dict[str, int]]] = {}
        for record in index.by_id(dict.fromkeys(chunk_ids), self._scope):
            out.setdefault(record.id, self._chunk_hit(record, 1.0))
            if neighbours <= 0:
                continue
            if record.data_id not in items:
                ordered = index.of_data(record.data_id)
                items[record.data_id] = (ordered, {r.id: i for i, r in enumerate(ordered)})
            siblings, position = items[record.data_id]
            at = position[record.id]
            for other in siblings[max(0, at - neighbours) : at + neighbours + 1]:
                distance = abs(other.chunk_index - record.chunk_index)
                out.setdefault(other.id, self._chunk_hit(other, 1.0 / (1 + distance)))
        return list(out.values())

    async def chunks_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[ChunkHit]:
        index = self._store.index.vectors
        found = _in_time(index, self._scope, start, end, vector, k)
        return [self._chunk_hit(r, s) for r, s in found]

    async def latest_message_time(self) -> datetime | None:
        index = self._store.index.vectors
        return await asyncio.to_thread(_latest_message_time, index, self._scope)

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
                    if record.dataset_id in scope:
                        out.append(self._chunk_hit(record, 1.0))
                    if len(out) >= k:
                        return out
        return out

    # graph elements by meaning

    async def nearest_entities(self, vector: np.ndarray, k: int) -> list[EntityHit]:
        hits = self._store.entity_index.search(vector, k, self._scope)
        if not hits:
            return []
        ids = [row["id"] for row, _ in hits]
        mentions = await asyncio.to_thread(self._store.graph.mention_chunks, ids)
        return [
            EntityHit(
                score=score,
                sources=self._refs(
                    [c for c, _ in mentions.get(row["id"], [])][:MAX_ENTITY_SOURCES]
                ),
                dataset_id=row["dataset_id"],
                dataset_name=self._names.get(row["dataset_id"]),
                id=row["id"],
                name=row["name"],
                type=row["type"],
            )
            for row, score in hits
        ]

    async def nearest_triplets(self, vector: np.ndarray, k: int) -> list[TripletHit]:
        hits = self._store.relation_index.search(vector, k, self._scope)
        if not hits:
            return []
        score_of = {row["id"]: score for row, score in hits}
        rows = await asyncio.to_thread(
            self._store.graph.read,
            f"MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE r.id IN $ids RETURN {_EDGE_RETURN}",
            {"ids": list(score_of)},
        )
        edges = [self._edge(row, score_of[row[0]]) for row in rows if row[15] in self._scope]
        return sorted(edges, key=lambda e: (-e.score, e.id))

    async def nearest_summaries(self, vector: np.ndarray, k: int) -> list[SummaryHit]:
        out = []
        for row, score in self._store.summary_index.search(vector, k, self._scope):
            chunks = self._store.index.of_data(row["data_id"])
            out.append(
                SummaryHit(
                    score=score,
                    sources=tuple(c.source_ref() for c in chunks[:MAX_ENTITY_SOURCES]),
                    dataset_id=row["dataset_id"],
                    dataset_name=self._names.get(row["dataset_id"]),
                    id=row["id"],
                    data_id=row["data_id"],
                    text=row["text"],
                    method=row.get("method") or "",
                )
            )
        return out

    def _event_hit(self, row: dict[str, Any], score: float) -> EventHit:
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
        hits = self._store.event_index.search(vector, k, self._scope)
        return [self._event_hit(row, score) for row, score in hits]

    async def events_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[EventHit]:
        found = _in_time(self._store.event_index, self._scope, start, end, vector, k)
        return [self._event_hit(r, s) for r, s in found]

    async def entities_by_name(self, names: Sequence[str]) -> list[EntityHit]:
        keys = sorted({normalize_name(n) for n in names if n and n.strip()} - {""})
        if not keys:
            return []
        rows = await asyncio.to_thread(
            self._store.graph.read,
            "MATCH (e:Entity) WHERE e.dataset_id IN $ds UNWIND e.keys AS key "
            "WITH e, key WHERE key IN $keys "
            "RETURN DISTINCT e.id, e.name, e.type, e.description, e.aliases, e.dataset_id "
            "ORDER BY e.id",
            {"ds": list(self._scope), "keys": keys},
        )
        mentions = await asyncio.to_thread(self._store.graph.mention_chunks, [r[0] for r in rows])
        return [
            EntityHit(
                score=1.0,
                sources=self._mention_refs(mentions, r[0]),
                dataset_id=r[5],
                dataset_name=self._names.get(r[5]),
                id=r[0],
                name=r[1],
                type=r[2],
                description=r[3] or "",
                aliases=tuple(r[4] or ()),
            )
            for r in rows
        ]

    # structure

    async def _edges_touching(self, entity_ids: Sequence[str]) -> list[list[Any]]:
        return await asyncio.to_thread(
            self._store.graph.read,
            "MATCH (a:Entity)-[r:RELATES]->(b:Entity) "
            "WHERE (a.id IN $ids OR b.id IN $ids) AND r.dataset_id IN $ds "
            f"RETURN {_EDGE_RETURN} ORDER BY r.id",
            {"ids": list(entity_ids), "ds": list(self._scope)},
        )

    async def neighbourhood(
        self, entity_ids: Sequence[str], *, depth: int = 1, limit: int = 500
    ) -> list[TripletHit]:
        seen_edges: dict[str, TripletHit] = {}
        frontier = list(dict.fromkeys(entity_ids))
        visited = set(frontier)
        for hop in range(1, max(1, depth) + 1):
            if not frontier or len(seen_edges) >= limit:
                break
            rows = await self._edges_touching(frontier)
            next_frontier: list[str] = []
            for row in rows:
                if row[0] in seen_edges:
                    continue
                seen_edges[row[0]] = self._edge(row, 1.0 / hop)
                for end in (row[1], row[4]):
                    if end not in visited:
                        visited.add(end)
                        next_frontier.append(end)
                if len(seen_edges) >= limit:
                    break
            frontier = next_frontier
        return list(seen_edges.values())

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
            rows = await self._edges_touching(frontier)
            reached: list[str] = []
            frontier_set = set(frontier)
            for row in rows:
                edge = self._edge(row, 1.0)
                for here, there in ((row[1], row[4]), (row[4], row[1])):
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

    # structure in bulk, from the in-memory snapshot

    async def _adjacency(self) -> Adjacency:
        return await asyncio.to_thread(adjacency, self._store)

    def _graph_edge(self, edge: Edge) -> GraphEdge:
        return GraphEdge(
            id=edge.id,
            source_id=edge.source_id,
            target_id=edge.target_id,
            predicate=edge.predicate,
            chunk_id=edge.chunk_id,
            data_id=edge.data_id,
            dataset_id=edge.dataset_id,
        )

    async def nearest_edges(self, vector: np.ndarray, k: int) -> list[tuple[GraphEdge, float]]:
        hits = self._store.relation_index.search(vector, k, self._scope)
        if not hits:
            return []
        adj = await self._adjacency()
        out = []
        for row, score in hits:
            edge = adj.edges.get(row["id"])
            if edge is not None:
                out.append((self._graph_edge(edge), float(score)))
        return out

    async def nearest_entity_refs(
        self, vector: np.ndarray, k: int
    ) -> list[tuple[EntityRef, float]]:
        hits = self._store.entity_index.search(vector, k, self._scope)
        return [
            (EntityRef(id=row["id"], name=row["name"], type=row["type"]), float(score))
            for row, score in hits
        ]

    async def entity_refs(self, entity_ids: Sequence[str]) -> dict[str, EntityRef]:
        rows = self._store.entity_index.get(dict.fromkeys(entity_ids), self._scope)
        return {r["id"]: EntityRef(id=r["id"], name=r["name"], type=r["type"]) for r in rows}

    async def edges_of(self, entity_ids: Sequence[str]) -> list[GraphEdge]:
        adj = await self._adjacency()
        scope = set(self._scope)
        seen: dict[str, GraphEdge] = {}
        for entity_id in dict.fromkeys(entity_ids):
            for edge_id in adj.edges_of_entity.get(entity_id, ()):
                edge = adj.edges[edge_id]
                if edge_id not in seen and edge.dataset_id in scope:
                    seen[edge_id] = self._graph_edge(edge)
        return list(seen.values())

    async def edges_in_chunks(self, chunk_ids: Sequence[str]) -> list[GraphEdge]:
        adj = await self._adjacency()
        scope = set(self._scope)
        out: dict[str, GraphEdge] = {}
        for chunk_id in dict.fromkeys(chunk_ids):
            for edge_id in adj.edges_of_chunk.get(chunk_id, ()):
                edge = adj.edges[edge_id]
                if edge.dataset_id in scope:
                    out.setdefault(edge_id, self._graph_edge(edge))
        return list(out.values())

    async def mentions(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        adj = await self._adjacency()
        scope = set(self._scope)
        return {
            e: list(adj.chunks_of_entity.get(e, ()))
            for e in dict.fromkeys(entity_ids)
            if adj.entity_dataset.get(e) in scope
        }

    async def mentioned_in(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        adj = await self._adjacency()
        scope = set(self._scope)
        return {
            c: [e for e in adj.entities_of_chunk.get(c, ()) if adj.entity_dataset.get(e) in scope]
            for c in dict.fromkeys(chunk_ids)
        }

    async def triplets_by_id(self, relation_ids: Sequence[str]) -> list[TripletHit]:
        ids = list(dict.fromkeys(relation_ids))
        if not ids:
            return []
        rows = await asyncio.to_thread(
            self._store.graph.read,
            f"MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE r.id IN $ids RETURN {_EDGE_RETURN}",
            {"ids": ids},
        )
        found = {row[0]: self._edge(row, 0.0) for row in rows if row[15] in self._scope}
        return [found[i] for i in ids if i in found]

    # node sets

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
                sets = set(index.row(int(at)).metadata.get(NODE_SET_KEY) or ())
                where[at] = wanted <= sets if match_all else bool(wanted & sets)
            if vector is not None:
                found = index.search(vector, k, self._scope, where=where)
            else:
                found = [(index.row(int(at)), 1.0) for at in np.flatnonzero(where)[:k]]
        return [self._chunk_hit(r, float(score)) for r, score in found]

    # queries

    def _check_whole_tenant(self) -> None:
        outside = set(self._names) - set(self._scope)
        if outside:
            raise InvalidInputError(
                "Cypher search reads the whole tenant graph, and this call may read "
                f"{len(self._scope)} of the tenant's {len(self._names)} datasets. Leave "
                "datasets= unset (or name every dataset you may read), or keep data that "
                "must stay apart in separate tenants."
            )

    async def cypher(
        self,
        query: str,
        params: dict[str, Any] | None = None,
        *,
        timeout_s: float = 5.0,
        max_rows: int = 1000,
    ) -> CypherResult:
        self._check_whole_tenant()
        max_rows = max(1, min(int(max_rows), MAX_ROWS))
        columns, rows = await asyncio.to_thread(
            self._store.graph.read_only_query, query, params, timeout_ms=int(timeout_s * 1000)
        )
        return CypherResult(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    async def graph_schema(self) -> str:
        def run(query: str) -> list[list[Any]]:
            return self._store.graph.read_only_query(query, None)[1]

        def build() -> str:
            lines = []
            for table in run("CALL show_tables() RETURN name, type ORDER BY name"):
                name, kind = table[0], table[1]
                props = run(f"CALL table_info('{name}') RETURN name, type")
                fields = ", ".join(f"{p[0]} {p[1]}" for p in props)
                if kind == "REL":
                    ends = run(f"CALL show_connection('{name}') RETURN *")
                    pairs = ", ".join(f"(:{e[0]})-[:{name}]->(:{e[1]})" for e in ends)
                    lines.append(f"relationship {pairs} {{{fields}}}")
                else:
                    lines.append(f"node (:{name} {{{fields}}})")
            return "\n".join(lines)

        return await asyncio.to_thread(build)


def _latest_message_time(index: VectorIndex[Any], scope: Sequence[str]) -> datetime | None:
    """Newest first over the dated rows in scope: the time of the first that covers
    conversation messages."""
    with index.lock:
        times = index.times(np.arange(index.size))
        dated = np.flatnonzero(index.scope_mask(scope) & ~np.isnan(times))
        for at in dated[np.argsort(-times[dated], kind="stable")]:
            if index.row(int(at)).message_ids:
                return datetime.fromtimestamp(float(times[at]), UTC).replace(tzinfo=None)
    return None


def _in_time(
    index: VectorIndex[Any],
    scope: Sequence[str],
    start: datetime,
    end: datetime,
    vector: np.ndarray | None,
    k: int,
) -> list[tuple[Any, float]]:
    """Rows of ``index`` in scope whose time is in [start, end): the ``k`` nearest
    to ``vector`` when given, else the first ``k`` in time order (score 1)."""
    with index.lock:
        where = index.time_mask(to_epoch(start), to_epoch(end))
        if vector is not None:
            return index.search(vector, k, scope, where=where)
        rows = np.flatnonzero(where & index.scope_mask(scope))
        return [
            (index.row(at), 1.0) for at in rows[np.argsort(index.times(rows), kind="stable")][:k]
        ]
