"""An in-memory snapshot of a tenant's graph structure, for fast graph retrieval.

Graph retrievers walk many edges per query (projection around dozens of seed
entities, personalised PageRank over entities and the chunks that mention
them). One Kuzu round trip per hop costs milliseconds each, so the structure
(relations from the relation vector mirror, mentions from the graph store once) is kept
here as plain Python and numpy, rebuilt lazily when the store changes. The
snapshot also keeps the relations read from the graph with their text
(``records``), so the triplets a query lists are read from the graph once per
snapshot, not once per query.

A snapshot is keyed on the sizes of the tenant's in-memory indexes: every
ingest and every forget changes at least one of them after its Kuzu commit,
so a snapshot taken mid-commit is replaced by the next query. A write that only
added (an ingest: new chunks, relations and mentions; entities new or updated)
extends the last snapshot with what it added instead of reading everything
again (``_extended``); one that removed anything, or a store whose tables other
processes share, gets a new snapshot read whole.
"""

from __future__ import annotations

import threading
import weakref
from bisect import insort
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from recall_engine.core.cells import Record
from recall_engine.core.hits import EntityRef
from recall_engine.read.api import GraphEdge
from recall_engine.read.name_table import NameTable
from recall_engine.storage.graph_reads import EdgeRecord
from recall_engine.storage.tenant import TenantStore


@dataclass(frozen=True)
class Marks:
    """How far a snapshot has read the indexes it is built from: each index's rows
    ever added and ever removed (``VectorIndex.size`` and ``removed``)."""

    chunks: tuple[int, int]
    relations: tuple[int, int]
    entities: int

    @classmethod
    def of(cls, store: TenantStore) -> Marks:
        chunks, relations = store.index.vectors, store.relation_index
        return cls(
            chunks=(chunks.size, chunks.removed),
            relations=(relations.size, relations.removed),
            entities=store.entity_index.size,
        )

    def read_on(self, store: TenantStore) -> Marks | None:
        """The store's marks now when, since these, it only gained rows (no chunk or
        relation removed) and its tables are its own (other processes' rows arrive by
        sync, not by ingest): what was added since can be read on from here. Else None."""
        now = Marks.of(store)
        if (
            store.shared is not None
            or now.chunks[1] != self.chunks[1]
            or now.relations[1] != self.relations[1]
        ):
            return None
        return now


@dataclass
class Adjacency:
    """Relations and mentions of one tenant (all datasets; readers filter scope)."""

    edges: dict[str, GraphEdge] = field(default_factory=dict)
    """Each relation's structure, built once here: readers hand these frozen
    models out as they are (a graph search lists about 150 per query)."""
    edges_of_entity: dict[str, list[str]] = field(default_factory=dict)
    edges_of_chunk: dict[str, list[str]] = field(default_factory=dict)
    chunks_of_entity: dict[str, list[str]] = field(default_factory=dict)
    entities_of_chunk: dict[str, list[str]] = field(default_factory=dict)
    entity_dataset: dict[str, str] = field(default_factory=dict)
    datasets: frozenset[str] | None = None
    """Every dataset an entity or relation of the snapshot belongs to (None: not
    worked out): a reader whose scope holds them all skips its per-item scope test."""
    refs: dict[str, EntityRef] = field(default_factory=dict)
    """Entity refs (id, name, type: fixed for an id) by id, filled as readers ask
    for them (``StructureReader.entity_refs``): a graph search over documents asks
    for a thousand or more, mostly the same from one query to the next."""
    records: dict[str, EdgeRecord] = field(default_factory=dict)
    """Relations read from the graph with their text and ends' names, by id (all
    datasets), filled as readers ask for them (``GraphReader.triplets_by_id``),
    and all at once by ``fill_records``. A write changes the version: the next
    snapshot keeps only the records the write could not change (``_records_kept``);
    a reader that still holds the old snapshot may add a newer record to it, never
    an older one to the new."""
    complete: bool = False
    """Whether ``records`` holds every relation (``fill_records`` ran)."""
    partial_reads: int = 0
    """Reads of a few relations made for this snapshot (``wants_all_records``)."""
    names: NameTable | None = None
    """Every entity by normalised name, and its synonyms (``read.name_table``),
    worked out on the first graph search that needs them (``name_table``)."""
    marks: Marks | None = None
    """How far the indexes were read (taken before reading them): a later snapshot
    reads on from here (``_extended``)."""
    names_from: tuple[NameTable, int] | None = None
    """An earlier snapshot's name table and the entity rows it had read
    (``VectorIndex.size`` before reading them): ``names`` is that table extended
    with the rows added since, when rows were only added."""


_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[TenantStore, tuple[tuple[int, ...], Adjacency]] = (
    weakref.WeakKeyDictionary()
)


def _version(store: TenantStore) -> tuple[int, ...]:
    relations, entities = store.relation_index, store.entity_index
    return (len(store.index), relations.size, len(relations), entities.size, len(entities))


def store_version(store: TenantStore) -> tuple[int | None, ...]:
    """A value that changes with every write to ``store`` (its sizes, and the graph's
    commit count where the backend keeps one): what caches of its reads are keyed on."""
    generation = getattr(store.graph, "generation", None)
    return (*_version(store), generation if isinstance(generation, int) else None)


def _edge(row: Record) -> GraphEdge:
    return GraphEdge.trusted(
        id=row["id"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        predicate=row["predicate"],
        chunk_id=row["chunk_id"],
        data_id=row["data_id"],
        dataset_id=row["dataset_id"],
    )


def _build(store: TenantStore) -> Adjacency:
    adj = Adjacency(marks=Marks.of(store))
    for row in store.relation_index.rows(None):
        edge = _edge(row)
        adj.edges[edge.id] = edge
        adj.edges_of_entity.setdefault(edge.source_id, []).append(edge.id)
        if edge.target_id != edge.source_id:
            adj.edges_of_entity.setdefault(edge.target_id, []).append(edge.id)
        adj.edges_of_chunk.setdefault(edge.chunk_id, []).append(edge.id)
    for link in store.graph.mention_links():
        adj.chunks_of_entity.setdefault(link.entity_id, []).append(link.chunk_id)
        adj.entities_of_chunk.setdefault(link.chunk_id, []).append(link.entity_id)
        adj.entity_dataset[link.entity_id] = link.dataset_id
    for row in store.entity_index.rows(None):
        adj.entity_dataset.setdefault(row["id"], row["dataset_id"])
    adj.datasets = _datasets(adj.entity_dataset.values(), adj.edges.values())
    return adj


def _datasets(entity_datasets: Iterable[str], edges: Iterable[GraphEdge]) -> frozenset[str]:
    return frozenset(entity_datasets) | {edge.dataset_id for edge in edges}


class _Lists:
    """A copy of a snapshot's id -> ids map whose lists are copied before their
    first change, so the snapshot it came from never changes under its readers."""

    def __init__(self, old: dict[str, list[str]]) -> None:
        self.map = dict(old)
        self._own: set[str] = set()

    def list_of(self, key: str) -> list[str]:
        if key not in self._own:
            self._own.add(key)
            self.map[key] = list(self.map.get(key, ()))
        return self.map[key]


def _extended(store: TenantStore, old: Adjacency) -> Adjacency | None:
    """``old`` with what was added to ``store`` since it was read, equal to a
    snapshot read whole now (the same edges, mentions and list orders); None when
    a row was removed since (a forget, a replaced document) or the tables are
    shared with other processes (their rows arrive by sync, not by ingest)."""
    marks = old.marks
    now = marks.read_on(store) if marks is not None else None
    if marks is None or now is None:
        return None
    edges = dict(old.edges)
    of_entity, of_chunk = _Lists(old.edges_of_entity), _Lists(old.edges_of_chunk)
    subjects: set[str] = set()
    touched: set[str] = set()  # the datasets of every row read on: a superset is safe
    for row in store.relation_index.rows_since(marks.relations[0]):
        subjects.add(row["source_id"])
        touched.add(row["dataset_id"])
        if row["id"] in edges:  # read already: the snapshot was taken mid-commit
            continue
        edge = edges[row["id"]] = _edge(row)
        of_entity.list_of(edge.source_id).append(edge.id)
        if edge.target_id != edge.source_id:
            of_entity.list_of(edge.target_id).append(edge.id)
        of_chunk.list_of(edge.chunk_id).append(edge.id)
    new_chunks = [
        chunk.id
        for chunk in store.index.vectors.rows_since(marks.chunks[0])
        if chunk.id not in old.entities_of_chunk
    ]
    chunks_of_entity = _Lists(old.chunks_of_entity)
    entities_of_chunk, entity_dataset = dict(old.entities_of_chunk), dict(old.entity_dataset)
    for link in store.graph.mention_links(new_chunks) if new_chunks else ():
        insort(chunks_of_entity.list_of(link.entity_id), link.chunk_id)  # by chunk id
        entities_of_chunk.setdefault(link.chunk_id, []).append(link.entity_id)
        entity_dataset[link.entity_id] = link.dataset_id
        touched.add(link.dataset_id)
    refs, updated = dict(old.refs), []
    for row in store.entity_index.rows_since(marks.entities):
        updated.append(row["id"])
        touched.add(row["dataset_id"])
        entity_dataset.setdefault(row["id"], row["dataset_id"])
        refs.pop(row["id"], None)  # an updated entity: its type may have changed
    records = _records_kept(old, subjects, updated)
    return Adjacency(
        edges=edges,
        edges_of_entity=of_entity.map,
        edges_of_chunk=of_chunk.map,
        chunks_of_entity=chunks_of_entity.map,
        entities_of_chunk=entities_of_chunk,
        entity_dataset=entity_dataset,
        datasets=None if old.datasets is None else old.datasets | touched,
        refs=refs,
        records=records,
        # carried over whole but for what the write changed: read the rest on first use
        partial_reads=PARTIAL_READS if old.complete else 0,
        marks=now,
        names_from=old.names_from,
    )


def _records_kept(
    old: Adjacency, subjects: set[str], updated: Sequence[str]
) -> dict[str, EdgeRecord]:
    """The records of ``old`` a write left as they were: all but the relations of the
    subjects it stated facts of (their validity is worked out again,
    ``kuzu_validity``) and those with an end it updated (a name or type may change)."""
    records = dict(old.records)
    for entity_id in subjects:
        for edge_id in old.edges_of_entity.get(entity_id, ()):
            if old.edges[edge_id].source_id == entity_id:
                records.pop(edge_id, None)
    for entity_id in updated:
        for edge_id in old.edges_of_entity.get(entity_id, ()):
            records.pop(edge_id, None)
    return records


def current_adjacency(store: TenantStore) -> Adjacency | None:
    """The snapshot when it is built and current (no blocking work), else None."""
    with _LOCK:
        cached = _CACHE.get(store)
    return cached[1] if cached is not None and cached[0] == _version(store) else None


def adjacency(store: TenantStore) -> Adjacency:
    """The current structure snapshot of ``store`` (built on first use after a change).

    Blocking (it may read Kuzu): call it from a worker thread.
    """
    version = _version(store)
    with _LOCK:
        cached = _CACHE.get(store)
        if cached is not None and cached[0] == version:
            return cached[1]
    built = (_extended(store, cached[1]) if cached is not None else None) or _build(store)
    with _LOCK:
        _CACHE[store] = (version, built)
    return built


def name_table(store: TenantStore, snapshot: Adjacency) -> NameTable:
    """The snapshot's name table, worked out from every entity's name on first use.

    Blocking (a pass over every entity): call it from a worker thread when
    ``snapshot.names`` is None."""
    if snapshot.names is not None:
        return snapshot.names
    entities = store.entity_index
    mark, table = entities.size, None
    if snapshot.names_from is not None:
        earlier, since = snapshot.names_from
        rows = entities.rows_since(since)
        table = earlier.extended((r["id"], r["name"], r["dataset_id"]) for r in rows)
    if table is None:
        rows = entities.rows(None)
        table = NameTable.build((r["id"], r["name"], r["dataset_id"]) for r in rows)
    snapshot.names, snapshot.names_from = table, (table, mark)
    return table


PARTIAL_READS = 2
"""Reads of a few relations a snapshot serves before the next one reads them all.

Kuzu has no index on relation properties, so reading a few relations by id or
by chunk scans the relation table, at nearly the cost of reading it whole (a
thousandth of the rows, a fifth to a tenth of the time, on documents). A store
that keeps being read at one version pays one full read and then none, and a
write that only adds carries the records over (``_extended``: the rest are read by
their subjects); one written between every pair of reads (a conversation ingested
as it goes) that never reached the count reads only what it asks for."""


def wants_all_records(snapshot: Adjacency) -> bool:
    """Count one more read of a few relations for ``snapshot``; whether it should
    now read every relation instead (``fill_records``)."""
    if snapshot.complete:
        return False
    snapshot.partial_reads += 1
    return snapshot.partial_reads > PARTIAL_READS


def fill_records(store: TenantStore, snapshot: Adjacency) -> None:
    """Read every relation of the snapshot's datasets into ``snapshot.records``: those
    it lacks, by their subjects, when they are a few (a snapshot carried over a write,
    ``_extended``), else all of them at once.

    Blocking (it reads the graph): call it from a worker thread."""
    edges, records = snapshot.edges, snapshot.records
    datasets = sorted({edge.dataset_id for edge in edges.values()})
    missing = [edge for edge_id, edge in edges.items() if edge_id not in records]
    if records and len(missing) <= len(edges) // FEW_MISSING:
        found = store.graph.edges_from(sorted({e.source_id for e in missing}), datasets)
    else:
        found = store.graph.edges_of_datasets(datasets)
    for record in found:
        records.setdefault(record.id, record)
    snapshot.complete = True


FEW_MISSING = 10
"""A snapshot missing at most one in this many records reads them by their
subjects (a lookup of each) rather than every relation (a scan of the table)."""


def holds_records(snapshot: Adjacency, edge_ids: Iterable[str]) -> bool:
    """Whether ``snapshot.records`` holds these relations (all of them when complete)."""
    records = snapshot.records
    return snapshot.complete or all(i in records for i in edge_ids)


def records_in_chunks(
    snapshot: Adjacency, chunk_ids: Sequence[str], scope: Sequence[str]
) -> list[EdgeRecord]:
    """``GraphStore.edges_in_chunks`` from a snapshot that holds their records
    (``holds_records``): the relations of ``scope`` stated in these chunks, ordered
    by id."""
    allowed, records = set(scope), snapshot.records
    found = {
        edge_id: records[edge_id]
        for chunk_id in chunk_ids
        for edge_id in snapshot.edges_of_chunk.get(chunk_id, ())
        if edge_id in records and records[edge_id].dataset_id in allowed
    }
    return [found[i] for i in sorted(found)]


def records_from(
    snapshot: Adjacency, entity_ids: Iterable[str], scope: Sequence[str]
) -> list[EdgeRecord]:
    """``GraphStore.edges_from`` from a snapshot that holds their records
    (``holds_records``): the relations of ``scope`` whose source is one of
    ``entity_ids``, ordered by id."""
    allowed, records = set(scope), snapshot.records
    found = {
        edge_id: records[edge_id]
        for entity_id in entity_ids
        for edge_id in snapshot.edges_of_entity.get(entity_id, ())
        if edge_id in records
        and records[edge_id].source_id == entity_id
        and records[edge_id].dataset_id in allowed
    }
    return [found[i] for i in sorted(found)]


def in_scope(ids: Sequence[str], datasets: dict[str, str], scope: frozenset[str]) -> list[str]:
    """The ids whose dataset (looked up in ``datasets``) is in ``scope``."""
    return [i for i in ids if datasets.get(i) in scope]
