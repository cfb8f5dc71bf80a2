"""``StructureReader``: graph structure in bulk from the in-memory snapshot
(``read.adjacency``), for graph scoring over many edges at once
(``read.api.StructureReads``). A graph search makes about ten of these reads, so
a current snapshot is taken on the event loop: a thread hop each cost more than
the read (only a snapshot that must be built goes to a worker thread)."""

from __future__ import annotations

import asyncio
import threading
import uuid
import weakref
from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from recall_engine.core.hits import EntityRef
from recall_engine.read.adjacency import (
    Adjacency,
    adjacency,
    current_adjacency,
    name_table,
    store_version,
)
from recall_engine.read.api import GraphEdge, ScopeGraph
from recall_engine.read.linking import name_grams
from recall_engine.read.name_table import NameTable
from recall_engine.read.scoped import ScopedReader, search_deeper
from recall_engine.storage.tenant import TenantStore

_TOKENS: weakref.WeakKeyDictionary[TenantStore, str] = weakref.WeakKeyDictionary()
_TOKENS_LOCK = threading.Lock()


def _token(store: TenantStore) -> str:
    """A random id of ``store`` for as long as it lives: two stores of equal sizes
    (two engines' copies of one dataset) never share a snapshot version."""
    with _TOKENS_LOCK:
        return _TOKENS.setdefault(store, uuid.uuid4().hex)


class StructureReader(ScopedReader):
    """Edges, entity refs and mentions within the scope, without text."""

    async def _adjacency(self) -> Adjacency:
        current = current_adjacency(self._store)
        return current if current is not None else await asyncio.to_thread(adjacency, self._store)

    async def nearest_edges(self, vector: np.ndarray, k: int) -> list[tuple[GraphEdge, float]]:
        async def search(depth: int) -> tuple[int, list[tuple[GraphEdge, float]]]:
            hits = self._store.relation_index.search(vector, depth, self._scope)
            if not hits:
                return 0, []
            adj = await self._adjacency()
            out = []
            for row, score in hits:
                edge = adj.edges.get(row["id"])
                if edge is not None:
                    out.append((edge, float(score)))
            passing = self._passing(e.chunk_id for e, _ in out)
            if passing is not None:
                out = [(e, s) for e, s in out if e.chunk_id in passing]
            return len(hits), out

        # without a filter, one search: an edge the snapshot lacks is not one the
        # filter dropped
        found = (await search(k))[1] if self._where is None else await search_deeper(k, search)
        return found[:k]

    async def nearest_entity_refs(
        self, vector: np.ndarray, k: int
    ) -> list[tuple[EntityRef, float]]:
        hits, _ = await self._nearest_entities(vector, k, self._all_mentions)
        if not hits:
            return []
        current = current_adjacency(self._store)  # an id's ref is fixed within a snapshot
        known = current.refs if current is not None else {}
        out = []
        for row, score in hits:
            ref = known.get(row["id"])
            if ref is None:
                ref = EntityRef(id=row["id"], name=row["name"], type=row["type"])
                known.setdefault(ref.id, ref)
            out.append((ref, float(score)))
        return out

    async def entity_refs(self, entity_ids: Sequence[str]) -> dict[str, EntityRef]:
        wanted = list(dict.fromkeys(entity_ids))
        adj = await self._adjacency()
        known = adj.refs  # kept per snapshot: built once, not once per query
        if missing := [e for e in wanted if e not in known]:
            for r in self._store.entity_index.get(missing):
                known.setdefault(r["id"], EntityRef(id=r["id"], name=r["name"], type=r["type"]))
        scope, dataset = set(self._scope), adj.entity_dataset
        return {e: known[e] for e in wanted if e in known and dataset.get(e) in scope}

    def _covers(self, adj: Adjacency) -> bool:
        """Whether the scope holds every dataset of the snapshot: then an entity or
        relation of it is in scope when it is in it at all."""
        return adj.datasets is not None and adj.datasets.issubset(self._scope)

    async def _scoped_names(self, entity_ids: Sequence[str]) -> tuple[NameTable, set[str]]:
        """The snapshot's name table, and those of ``entity_ids`` in scope."""
        adj = await self._adjacency()
        table = adj.names
        if table is None:
            table = await asyncio.to_thread(name_table, self._store, adj)
        if self._covers(adj):  # one C-level pass over the ids asked
            return table, adj.entity_dataset.keys() & set(entity_ids)
        scope, dataset = set(self._scope), adj.entity_dataset
        return table, {e for e in entity_ids if dataset.get(e) in scope}

    async def named_in(self, text: str, entity_ids: Sequence[str]) -> set[str]:
        table, wanted = await self._scoped_names(entity_ids)
        return table.named(name_grams(text), wanted, set(self._scope))

    async def synonym_pairs(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        table, wanted = await self._scoped_names(entity_ids)
        return table.pairs_among(wanted, one_dataset=len(set(self._scope)) == 1)

    async def edges_of(self, entity_ids: Sequence[str]) -> list[GraphEdge]:
        adj = await self._adjacency()
        of_entity = adj.edges_of_entity
        ids = dict.fromkeys(chain.from_iterable(of_entity.get(e, ()) for e in entity_ids))
        return self._edges_in_scope(adj, ids)

    async def edges_in_chunks(self, chunk_ids: Sequence[str]) -> list[GraphEdge]:
        adj = await self._adjacency()
        of_chunk = adj.edges_of_chunk
        ids = dict.fromkeys(chain.from_iterable(of_chunk.get(c, ()) for c in chunk_ids))
        return self._edges_in_scope(adj, ids)

    def _edges_in_scope(self, adj: Adjacency, edge_ids: Iterable[str]) -> list[GraphEdge]:
        """The snapshot's edges of ``edge_ids`` (distinct, in order) in scope, stated
        in chunks the reader's filter passes."""
        edges = adj.edges
        if self._covers(adj):
            found = [edges[i] for i in edge_ids]
        else:
            scope = set(self._scope)
            found = [e for e in map(edges.__getitem__, edge_ids) if e.dataset_id in scope]
        return self._stated_passing(found)

    async def _all_mentions(self, entity_ids: list[str]) -> dict[str, list[str]]:
        """Entity id -> every chunk that mentions it (the snapshot's), filter aside."""
        of_entity = (await self._adjacency()).chunks_of_entity
        return {e: list(of_entity.get(e, ())) for e in entity_ids}

    async def mentions(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        adj = await self._adjacency()
        of_entity, dataset = adj.chunks_of_entity, adj.entity_dataset
        scope, covers = set(self._scope), self._covers(adj)
        found = {
            e: list(of_entity.get(e, ()))
            for e in dict.fromkeys(entity_ids)
            if (e in dataset if covers else dataset.get(e) in scope)
        }
        kept = self._kept_mentions(found)
        return found if kept is None else kept

    async def mentioned_in(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        adj = await self._adjacency()
        of_chunk, dataset = adj.entities_of_chunk, adj.entity_dataset
        wanted = list(dict.fromkeys(chunk_ids))
        passing = self._passing(wanted)
        if self._covers(adj):  # every entity a chunk mentions has its dataset noted
            found = {c: list(of_chunk.get(c, ())) for c in wanted}
        else:
            scope = set(self._scope)
            found = {c: [e for e in of_chunk.get(c, ()) if dataset.get(e) in scope] for c in wanted}
        if passing is not None:  # a chunk the filter excludes mentions nothing it may see
            found = {c: ids if c in passing else [] for c, ids in found.items()}
        return found

    async def scope_graph(self) -> ScopeGraph:
        adj = await self._adjacency()
        scope = set(self._scope)
        kept = None if self._where is None else await asyncio.to_thread(self._passing_chunks)
        edges = [
            e
            for e in adj.edges.values()
            if e.dataset_id in scope and (kept is None or e.chunk_id in kept)
        ]
        mentions: dict[str, list[str]] = {}
        for entity, chunks in adj.chunks_of_entity.items():
            if adj.entity_dataset.get(entity) not in scope:
                continue
            passing = chunks if kept is None else [c for c in chunks if c in kept]
            if passing:
                mentions[entity] = passing
        version = (_token(self._store), *store_version(self._store), *self._scope)
        if kept is not None:  # a filtered view is its own graph
            version = (*version, hash(frozenset(kept)))
        return ScopeGraph(version=version, edges=edges, mentions=mentions)

    def _passing_chunks(self) -> set[str]:
        """The ids of the chunks in scope that pass the reader's filter."""
        index = self._store.index
        with index.vectors.lock:
            mask = self._mask()
            return {index.vectors.row(int(at)).id for at in np.flatnonzero(mask)}
