"""``ReadAPI``: everything a retriever may read, always within one scope.

A reader is bound to one tenant and one explicit set of dataset ids when the
recall pipeline builds it, so a retriever cannot read outside the caller's
scope: every method answers from those datasets only. All methods are async
and read-only; blocking work runs off the event loop. A second implementation
(e.g. over the maintained Kuzu fork) implements this Protocol without any
retriever changing.

``ReadAPI`` is composed of small Protocols, one per kind of read:
``ChunkReads`` (chunks), ``GraphReads`` (graph elements with text, walks),
``StructureReads`` (bulk structure without text), ``CypherReads`` (the
CYPHER search type's query and the schema) and ``FactReads`` (facts with their
validity), each on ``ScopedReads``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.facts import Fact
from recall_engine.core.hits import (
    ChunkHit,
    EntityHit,
    EntityRef,
    EventHit,
    SummaryHit,
    TripletHit,
)
from recall_engine.core.trusted import assemble


class GraphPath(BaseModel):
    """A path of edges from one entity to another, in walking order."""

    model_config = ConfigDict(frozen=True)

    edges: tuple[TripletHit, ...] = Field(description="Each edge as stored (its own direction).")
    entity_ids: tuple[str, ...] = Field(description="The entities walked, first to last.")

    @property
    def length(self) -> int:
        return len(self.edges)


class GraphEdge(BaseModel):
    """One relation's structure (no text): what graph scoring walks over.

    ``triplets_by_id`` turns the edges a retriever keeps into full ``TripletHit``s.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    source_id: str
    target_id: str
    predicate: str
    chunk_id: str
    data_id: str
    dataset_id: str

    @classmethod
    def trusted(
        cls,
        *,
        id: str,
        source_id: str,
        target_id: str,
        predicate: str,
        chunk_id: str,
        data_id: str,
        dataset_id: str,
    ) -> GraphEdge:
        """The edge of these values, built without validation (``core.trusted``):
        each must be a ``str`` already, as a relation row's are."""
        values = {
            "id": id,
            "source_id": source_id,
            "target_id": target_id,
            "predicate": predicate,
            "chunk_id": chunk_id,
            "data_id": data_id,
            "dataset_id": dataset_id,
        }
        return assemble(cls, values, set(_EDGE_FIELDS))


_EDGE_FIELDS = frozenset(GraphEdge.model_fields)


class ChunkPlace(NamedTuple):
    """Where a chunk sits and how it scored, without its text: what fusion and
    neighbour spreading rank before any ``ChunkHit`` is built (``chunks_by_id``
    builds the ones kept). A tuple: a passage query ranks about 150 of them."""

    chunk_id: str
    data_id: str
    chunk_index: int
    score: float


class ScopeGraph(NamedTuple):
    """The whole graph structure of a scope at one snapshot (no text): what a report
    on the graph reads. ``version`` changes with every write to the store."""

    version: tuple[int | str | None, ...]
    edges: list[GraphEdge]
    mentions: dict[str, list[str]]
    """Entity id -> the chunks in scope that mention it."""


class CypherResult(BaseModel):
    """Rows of a read-only Cypher query."""

    model_config = ConfigDict(frozen=True)

    columns: list[str]
    rows: list[list[object]]
    truncated: bool = Field(default=False, description="More rows matched than were returned.")

    def records(self) -> list[dict[str, object]]:
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]


class ScopedReads(Protocol):
    """What every part of the read API is bound to: one tenant, one dataset scope."""

    @property
    def tenant_id(self) -> str: ...

    @property
    def dataset_ids(self) -> tuple[str, ...]:
        """The scope: every method answers from these datasets only."""
        ...


class ChunkReads(ScopedReads, Protocol):
    """Chunks by meaning, by terms, by id, by time, by title and by node set."""

    async def dense_chunks(self, vector: np.ndarray, k: int) -> list[ChunkHit]:
        """The ``k`` chunks nearest to ``vector`` (cosine similarity as score)."""
        ...

    async def lexical_chunks(self, query: str, k: int) -> list[ChunkHit]:
        """The ``k`` best chunks by BM25 (chunks sharing no term are left out)."""
        ...

    async def chunks_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkHit]:
        """These chunks (those in scope, in the order asked), each followed by up to
        ``neighbours`` chunks before and after it in the same data item."""
        ...

    async def chunk_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embeddings of these chunks (those in scope): chunk id -> vector,
        so a query built from a chunk's text can reuse its vector instead of embedding it."""
        ...

    async def dense_places(self, vector: np.ndarray, k: int) -> list[ChunkPlace]:
        """``dense_chunks`` as places: the same chunks and scores, no hits built."""
        ...

    async def lexical_places(self, query: str, k: int) -> list[ChunkPlace]:
        """``lexical_chunks`` as places."""
        ...

    async def places_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkPlace]:
        """``chunks_by_id`` as places (a neighbour's score: 1 / (1 + distance))."""
        ...

    async def chunks_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[ChunkHit]:
        """Chunks whose timestamp falls in [start, end); ranked by ``vector`` when
        given, else in time order; with a reader's filter, the first ``k`` it passes."""
        ...

    async def latest_message_time(self) -> datetime | None:
        """The latest timestamp of a conversation chunk in scope (naive UTC), or None
        when the scope holds no dated conversation; with a reader's filter, of the
        chunks it passes (as of ``as_of``: the latest said by then)."""
        ...

    async def speakers(self) -> frozenset[str]:
        """The names (as stored) of everyone who says a chunk in scope: the people of
        its conversations; empty when it holds none. With a reader's filter, of the
        chunks it passes."""
        ...

    async def titled_chunks(self, text: str, k: int) -> list[ChunkHit]:
        """Chunks (at most ``k``) of the data items whose title ``text`` names as a
        phrase (``recall_engine.read.titles``), longest titles first, in chunk order."""
        ...

    async def chunks_in_node_sets(
        self,
        node_sets: Sequence[str],
        *,
        vector: np.ndarray | None = None,
        k: int = 100,
        match_all: bool = False,
    ) -> list[ChunkHit]:
        """Chunks of data items remembered with ``node_set=`` naming any (or, with
        ``match_all``, every) one of ``node_sets``; the ``k`` nearest to ``vector``
        when given, else the first ``k`` in insertion order (score 1); with a
        reader's filter, among the chunks it passes. A chunk's node sets are in
        ``metadata["node_set"]``."""
        ...


class GraphReads(ScopedReads, Protocol):
    """Graph elements (with text and provenance) by meaning, by name or by time,
    and walks over the stored graph."""

    async def nearest_entities(self, vector: np.ndarray, k: int) -> list[EntityHit]:
        """The ``k`` entities nearest to ``vector``, each citing its earliest mentions;
        with a reader's filter, as ``nearest_entity_refs`` and ``entities_by_name``."""
        ...

    async def nearest_triplets(self, vector: np.ndarray, k: int) -> list[TripletHit]:
        """Relations whose text (``source predicate target: context``) is nearest; with
        a reader's filter, the ``k`` nearest stated in a chunk it passes."""
        ...

    async def nearest_summaries(self, vector: np.ndarray, k: int) -> list[SummaryHit]:
        """Data items' summaries, nearest first, each citing the item's first chunks;
        with a reader's filter, the ``k`` nearest of items with a chunk it passes, and
        one of an item it passes only in part rebuilt from those chunks, citing and
        scored by them (``read.summary_view``: a summary restates its whole item)."""
        ...

    async def nearest_events(self, vector: np.ndarray, k: int) -> list[EventHit]:
        """The ``k`` events nearest to ``vector``, each citing the chunk that states
        it; with a reader's filter, the ``k`` nearest stated in a chunk it passes."""
        ...

    async def entities_by_name(self, names: Sequence[str]) -> list[EntityHit]:
        """Entities whose name, alias or (people) surname matches, normalised; with a
        reader's filter, those mentioned in a chunk it passes, citing only such chunks."""
        ...

    async def events_between(
        self, start: datetime, end: datetime, *, vector: np.ndarray | None = None, k: int = 100
    ) -> list[EventHit]:
        """Events whose resolved time falls in [start, end); ranked by ``vector``
        when given, else in time order; with a reader's filter, the first ``k``
        stated in a chunk it passes (when it was stated, not when it happened, is
        what ``as_of`` bounds)."""
        ...

    async def paths(
        self, sources: Sequence[str], targets: Sequence[str], *, max_length: int = 3
    ) -> list[GraphPath]:
        """Shortest paths (up to ``max_length`` edges) from any source to any target;
        with a reader's filter, over relations stated in chunks it passes."""
        ...

    async def triplets_by_id(self, relation_ids: Sequence[str]) -> list[TripletHit]:
        """These relations as full triplets (context, time, sources), in the order asked;
        score 0 (callers set their own). With a reader's filter, those stated in a
        chunk it passes."""
        ...


class StructureReads(ScopedReads, Protocol):
    """Graph structure in bulk, without text (in memory; for graph scoring over
    many edges at once)."""

    async def nearest_edges(self, vector: np.ndarray, k: int) -> list[tuple[GraphEdge, float]]:
        """The ``k`` relations whose text is nearest to ``vector``, with cosine similarity;
        with a reader's filter, the ``k`` nearest stated in a chunk it passes."""
        ...

    async def nearest_entity_refs(
        self, vector: np.ndarray, k: int
    ) -> list[tuple[EntityRef, float]]:
        """The ``k`` entities nearest to ``vector`` (cosine similarity), without
        provenance; with a reader's filter, among those mentioned in a chunk it passes."""
        ...

    async def entity_refs(self, entity_ids: Sequence[str]) -> dict[str, EntityRef]:
        """Name and type of these entities (those in scope)."""
        ...

    async def named_in(self, text: str, entity_ids: Sequence[str]) -> set[str]:
        """Those of these entities (in scope) whose normalised name is a run of
        words of ``text`` (``read.linking``'s rule)."""
        ...

    async def synonym_pairs(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        """Pairs of these entities (those in scope) whose names are synonyms
        (``read.name_table``): each undirected pair at least once."""
        ...

    async def edges_of(self, entity_ids: Sequence[str]) -> list[GraphEdge]:
        """Every relation touching any of these entities (either end), each once."""
        ...

    async def edges_in_chunks(self, chunk_ids: Sequence[str]) -> list[GraphEdge]:
        """The relations stated in these chunks, in the order of the chunks."""
        ...

    async def mentions(self, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        """Entity id -> ids of the chunks in scope that mention it (its full degree);
        with a reader's filter, only the chunks it passes, and an entity mentioned in
        none of them is left out."""
        ...

    async def mentioned_in(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Chunk id -> ids of the entities it mentions; with a reader's filter, none
        for a chunk it excludes."""
        ...

    async def scope_graph(self) -> ScopeGraph:
        """Every relation and mention in scope, with the snapshot's version."""
        ...


class CypherReads(ScopedReads, Protocol):
    """The caller's read-only Cypher over the tenant graph, and its schema."""

    def reads_whole_tenant(self) -> bool:
        """Whether the scope is every dataset of the tenant and no filter leaves
        anything out (``metadata_filters``, ``as_of``): where ``cypher`` may run."""
        ...

    async def cypher(
        self,
        query: str,
        params: dict[str, object] | None = None,
        *,
        timeout_s: float = 5.0,
        max_rows: int = 1000,
    ) -> CypherResult:
        """Run read-only Cypher over the tenant's graph on a handle that refuses
        writes itself; bounded by ``timeout_s`` and a memory limit; at most
        ``max_rows`` rows (``truncated`` says when more matched).

        Cypher sees the whole tenant graph, so it runs only when the scope is
        every dataset of the tenant and the reader has no filter that leaves
        chunks out (``metadata_filters``, ``as_of``).

        Raises:
            InvalidInputError: the scope is narrower than the tenant, or the reader's
                filter leaves chunks out; the query writes, reaches outside the graph,
                is not valid Cypher, or needs more memory than allowed.
            QueryTimeoutError: the query ran past ``timeout_s``.
            StoreError: the query failed otherwise.
        """
        ...

    async def graph_schema(self) -> str:
        """The graph's node and relationship tables with their properties, one per
        line (what a text-to-Cypher prompt needs)."""
        ...


class FactReads(ScopedReads, Protocol):
    """Facts with their validity (``core.facts.Fact``): a subject's, and each chunk's."""

    async def facts(
        self, subject: str, *, as_of: datetime | None = None, history: bool = True
    ) -> list[Fact]:
        """The facts whose subject is named ``subject`` (name, alias or surname,
        normalised), sorted by predicate then statement time. ``as_of``: only
        those valid then (``valid_from <= as_of < valid_until``); else with
        ``history=False`` only current ones; else all, superseded ones included."""
        ...

    async def chunk_validity(self, chunk_ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Chunk id -> the facts of a family (home, job, ...) it states, with their
        validity (``valid_from``, ``valid_until``, ``superseded_by``,
        ``superseded_by_chunk``); chunks stating none are left out."""
        ...


class ReadAPI(ChunkReads, GraphReads, StructureReads, CypherReads, FactReads, Protocol):
    """A read-only view of one tenant, bound to a dataset scope: every part of
    the read API. A retriever that needs one part may ask for that Protocol only."""
