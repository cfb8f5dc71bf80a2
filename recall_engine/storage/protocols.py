"""The narrow interfaces a tenant store needs from its graph and vector backends.

Kuzu and LanceDB implement them today (``kuzu_graph``, ``lance_vectors``); a
maintained Kuzu fork or LanceDB on object storage can replace either without
touching code above this package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
import pyarrow as pa

from recall_engine.core.graph import Entity, Relation
from recall_engine.storage.graph_reads import (
    DocumentRecord,
    EdgeRecord,
    EntityRecord,
    MentionLink,
    TableSchema,
)
from recall_engine.storage.graph_records import GraphRemoval, GraphWrite, VectorRows
from recall_engine.storage.lance_graph import RowChanges, TableState
from recall_engine.storage.records import ChunkRecord, DataItemRecord


class GraphStore(Protocol):
    """A tenant's graph: writes of whole ingests, and typed reads.

    No method takes query text except ``read_only_query``, which runs the
    caller's own Cypher (the CYPHER search type) on a handle that refuses writes.
    Reads that take ``dataset_ids`` answer from those datasets only (none: nothing).
    """

    def read_only_query(
        self, query: str, params: dict[str, object] | None = None, *, timeout_ms: int = 5000
    ) -> tuple[list[str], list[list[object]]]:
        """Caller-written Cypher on a handle that refuses writes itself: column
        names and rows.

        Raises:
            InvalidInputError: the query writes, reaches outside the graph, or is not valid.
            QueryTimeoutError: it ran past ``timeout_ms``.
            StoreError: it failed otherwise.
        """
        ...

    # typed reads for the read API (never wait for an open write)

    def edges_by_id(
        self, relation_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """These relations, ordered by id."""
        ...

    def edges_touching(
        self, entity_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations with either end in ``entity_ids``, ordered by id."""
        ...

    def edges_from(self, entity_ids: Sequence[str], dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Relations whose subject (source) is in ``entity_ids``, ordered by id."""
        ...

    def edges_in_chunks(
        self, chunk_ids: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EdgeRecord]:
        """Relations extracted from these chunks, ordered by id."""
        ...

    def edges_of_datasets(self, dataset_ids: Sequence[str]) -> list[EdgeRecord]:
        """Every relation of ``dataset_ids``, ordered by id (one read of them all)."""
        ...

    def entities_by_keys(
        self, keys: Sequence[str], dataset_ids: Sequence[str]
    ) -> list[EntityRecord]:
        """Entities with one of these lookup keys (``core.graph.lookup_keys``), by id."""
        ...

    def mention_links(self, chunk_ids: Sequence[str] | None = None) -> list[MentionLink]:
        """Every (chunk, entity) mention (of ``chunk_ids`` only, when given), each
        once, ordered by chunk then entity."""
        ...

    def graph_schema(self) -> list[TableSchema]:
        """The graph's tables and their properties (what ``read_only_query`` can read)."""
        ...

    def datasets(self) -> dict[str, str]: ...

    def document_ids(self, among: Sequence[str] | None = None) -> set[str]: ...

    def documents(self, dataset_id: str | None = None) -> list[DocumentRecord]:
        """Every data item (of one dataset, else of all), ordered by id."""
        ...

    def documents_page(
        self,
        dataset_id: str,
        *,
        skip: int = 0,
        limit: int | None = None,
        source_prefix: str | None = None,
    ) -> list[DocumentRecord]:
        """Data items of one dataset in listing order (created_at, then id): ``limit``
        of them (None: all) after the first ``skip``; with ``source_prefix``, only
        those whose source id starts with it. One query, ordered and cut in the store."""
        ...

    def documents_matching(
        self,
        dataset_id: str,
        *,
        ids: Sequence[str] | None = None,
        holding: Sequence[tuple[str, str]] = (),
        also_prefix: str | None = None,
    ) -> list[DocumentRecord]:
        """Data items of one dataset in listing order that may hold a source of ``ids``
        (None: any) whose metadata holds each ``(key, value)`` of ``holding``, and those
        with no source id or one starting with ``also_prefix``: a superset chosen in the
        store (the caller checks the values)."""
        ...

    def document_count(self, dataset_id: str) -> int:
        """How many data items one dataset holds: one count query, no row read."""
        ...

    def documents_before(self, dataset_id: str, keys: Sequence[tuple[str, str]]) -> list[int]:
        """For each (created_at, id) of ``keys``, how many data items of one dataset
        ``documents_page`` orders before it: one query for them all, no row read."""
        ...

    def documents_by_source(self, dataset_id: str, source_ids: Sequence[str]) -> dict[str, str]: ...

    def write_ingest(
        self,
        datasets: Sequence[tuple[str, str, str]],
        items: Sequence[DataItemRecord],
        chunks: Sequence[ChunkRecord],
        replace_data_ids: Sequence[str] = (),
        graph: GraphWrite | None = None,
    ) -> GraphRemoval: ...

    def delete_data_items(self, data_ids: Sequence[str]) -> GraphRemoval: ...

    def extraction_failures(self, among: Sequence[str]) -> dict[str, str]: ...

    def entity_candidates(self, dataset_id: str, keys: Sequence[str]) -> list[Entity]: ...

    def entity_ids(self) -> set[str]: ...

    def entities(self, dataset_ids: Sequence[str] | None = None) -> list[Entity]: ...

    def relations(self, dataset_ids: Sequence[str] | None = None) -> list[Relation]: ...

    def mention_chunks(self, entity_ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]: ...

    def delete_dataset(self, dataset_id: str) -> None: ...

    def fence_writes(self, holder: str) -> None:
        """Name ``holder`` (a replica holding the tenant's writer lease) the only
        writer: this store's later writes fail, changing nothing, once another
        holder has claimed the graph (a graph shared by replicas); a no-op for a
        graph one process holds."""
        ...

    def close(self) -> None: ...


class GraphVectorTables(Protocol):
    """The entity, relation, event and summary tables (names in ``graph_records``)."""

    def add(self, batch: VectorRows) -> None: ...

    def delete_where(self, table: str, column: str, values: Iterable[str]) -> None: ...

    def delete_data(self, data_ids: Sequence[str]) -> None: ...

    def take_data(self, data_ids: Sequence[str]) -> dict[str, pa.Table]:
        """The relation, event and summary rows of these items as stored, per table."""
        ...

    def put_back(self, rows: Mapping[str, pa.Table]) -> None:
        """Append rows ``take_data`` read, unchanged."""
        ...

    def column(self, table: str, column: str) -> set[str]: ...

    def load(self, table: str) -> tuple[list[dict[str, object]], np.ndarray]: ...

    def changes(
        self,
        table: str,
        since: TableState | None,
        *,
        have: Callable[[str], bool],
        mirrored: Callable[[], set[str]] | None = None,
    ) -> tuple[TableState, RowChanges | None]:
        """What ``table`` holds now that it did not at ``since`` (another process's writes)."""
        ...

    def count(self, table: str) -> int: ...


class VectorStore(Protocol):
    dimension: int

    @property
    def graph(self) -> GraphVectorTables: ...

    def add_chunks(
        self,
        records: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
        sentences: Sequence[np.ndarray] | None = None,
    ) -> None: ...

    def delete_data(self, data_ids: Sequence[str]) -> None: ...

    def take_data(self, data_ids: Sequence[str]) -> pa.Table:
        """The chunk rows of these items as stored (every column)."""
        ...

    def purge_deleted(self) -> None:
        """Take deleted rows out of the files on disk (a no-op where other
        processes share the tables)."""
        ...

    def put_back(self, rows: pa.Table) -> None:
        """Append rows ``take_data`` read, unchanged."""
        ...

    def data_ids(self) -> set[str]: ...

    def data_ids_with_chunks(self, data_ids: Sequence[str]) -> set[str]: ...

    def data_ids_without_sentences(self, data_ids: Sequence[str]) -> set[str]: ...

    def load_chunks(
        self,
    ) -> tuple[list[ChunkRecord], np.ndarray, list[list[str]], list[np.ndarray]]: ...

    def count(self) -> int: ...
