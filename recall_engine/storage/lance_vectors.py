"""LanceDB adapter: the durable home of chunk vectors, text and provenance, and
of the graph's vector tables (``lance_graph``).

The only module that imports ``lancedb``. Tables use cosine distance; the chunks
table also carries the BM25 tokens of each chunk, so the in-memory lexical index
(which serves every lexical search) is rebuilt on open without re-tokenising. The tables
live in a local folder, or at an ``s3://`` URI that several processes share
(``vector_location``); then every read asks the object store for the latest
table version, and ``chunk_changes`` tells a mirror what other writers did.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa

from recall_engine.core.cells import Cell
from recall_engine.core.errors import EmbeddingModelMismatchError, StoreError
from recall_engine.storage.lance_graph import (
    LanceGraphTables,
    TableState,
    listing_changes,
    rows_of_data,
    take_rows,
)
from recall_engine.storage.lance_purge import drop_text_indexes, purge_deleted
from recall_engine.storage.lance_tables import (
    CHUNKS,
    MODEL_KEY,
    SENTENCES,
    add_sentence_column,
    chunk_schema,
    drop_tables,
    failure,
    open_or_create,
    sentence_array,
    sentence_lists,
    tables_exist,
)
from recall_engine.storage.records import ChunkRecord

__all__ = [
    "CHUNKS",
    "SENTENCES",
    "ChunkChanges",
    "LanceVectorStore",
    "TableState",
    "chunk_schema",
    "drop_tables",
    "tables_exist",
]

ID_BATCH = 500
"""Data ids per SQL IN-list."""


@dataclass(frozen=True)
class ChunkChanges:
    """What changed in the chunks table since a ``TableState``: chunk ids whose rows
    left it (drop them), and the rows to (re)add, in storage order."""

    gone: frozenset[str]
    records: list[ChunkRecord]
    vectors: np.ndarray
    tokens: list[list[str]]
    sentences: list[np.ndarray]
    """Each record's sentence vectors (``storage.sentence_index``)."""


def _quote(values: Sequence[str]) -> str:
    """A SQL IN-list of string literals; ids are generated hex/uuid strings."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


class LanceVectorStore:
    """Chunks, and the vectors of entities, relations, summaries and events, in LanceDB."""

    def __init__(
        self,
        location: Path | str,
        dimension: int,
        *,
        storage_options: Mapping[str, str] | None = None,
        model_id: str | None = None,
    ) -> None:
        """Open (or create) the tables in a folder, or at an ``s3://`` URI (``str``).

        ``model_id`` is recorded in a new chunks table and checked against an existing one.

        Raises:
            EmbeddingModelMismatchError: the tables were built with another model or dimension.
            StoreError: LanceDB could not open them (for a URI: which setting to check).
        """
        import lancedb

        self.dimension = dimension
        self.shared = isinstance(location, str)
        name = location.rsplit("/", 1)[-1] if isinstance(location, str) else location.parent.name
        self._location, self._name = location, name
        schema = chunk_schema(dimension)
        if model_id is not None:
            schema = schema.with_metadata({MODEL_KEY: model_id.encode()})
        try:
            if isinstance(location, str):
                # Every read asks for the latest version: other processes write these tables.
                self._db = lancedb.connect(
                    location,
                    storage_options=dict(storage_options or {}),
                    read_consistency_interval=timedelta(0),
                )
            else:
                self._db = lancedb.connect(str(location))
            self._chunks = open_or_create(self._db, schema)
        except Exception as exc:
            raise failure(exc, location, name, "open") from exc
        self._check_model(name, model_id)  # before the graph tables meet another dimension
        try:
            add_sentence_column(self._chunks, dimension)
        except Exception as exc:
            raise failure(exc, location, name, "open") from exc
        try:
            self.graph = LanceGraphTables(self._db, dimension)
        except Exception as exc:
            raise failure(exc, location, name, "open") from exc

    def _check_model(self, name: str, model_id: str | None) -> None:
        schema = self._chunks.schema
        built = (schema.metadata or {}).get(MODEL_KEY)
        size = schema.field("vector").type.list_size
        if size == self.dimension and (model_id is None or built in (None, model_id.encode())):
            return
        what = repr(built.decode()) if built else f"a {size}-dimensional model"
        raise EmbeddingModelMismatchError(
            f"The vector tables of tenant {name!r} were built with embedding model {what}, "
            f"but this engine uses {model_id!r} ({self.dimension} dimensions). Vectors from "
            "different models cannot be compared: configure the original model, or another "
            "vector_uri (or data dir) and remember() your data again."
        )

    def add_chunks(
        self,
        records: Sequence[ChunkRecord],
        vectors: np.ndarray,
        tokens: Sequence[Sequence[str]],
        sentences: Sequence[np.ndarray] | None = None,
    ) -> None:
        """Append chunks in one LanceDB commit (``sentences``: each chunk's
        sentence vectors, aligned with ``records``, none for a chunk of one
        sentence; None: not computed, stored as null cells, which
        ``data_ids_without_sentences`` finds)."""
        if not records:
            return
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        column_type = chunk_schema(self.dimension).field(SENTENCES).type
        sentence_cells = (
            pa.nulls(len(records), type=column_type)
            if sentences is None
            else sentence_array(list(sentences), self.dimension)
        )
        table = pa.table(
            {
                "id": [r.id for r in records],
                "data_id": [r.data_id for r in records],
                "dataset_id": [r.dataset_id for r in records],
                "dataset_name": [r.dataset_name for r in records],
                "chunk_index": [r.chunk_index for r in records],
                "text": [r.text for r in records],
                "document_name": [r.document_name for r in records],
                "metadata_json": [
                    json.dumps(r.metadata, sort_keys=True, default=str) for r in records
                ],
                "message_ids": [list(r.message_ids) for r in records],
                "speaker": [r.speaker for r in records],
                "timestamp": [r.timestamp for r in records],
                "created_at": [r.created_at for r in records],
                "tokens": [list(t) for t in tokens],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.dimension),
                SENTENCES: sentence_cells,
            },
            schema=chunk_schema(self.dimension),
        )
        try:
            self._chunks.add(table)
        except Exception as exc:
            raise StoreError(f"LanceDB refused {len(records)} chunks: {exc}") from exc

    def delete_data(self, data_ids: Sequence[str]) -> None:
        """Delete every chunk of the given data items."""
        for start in range(0, len(data_ids), ID_BATCH):
            batch = data_ids[start : start + ID_BATCH]
            try:
                self._chunks.delete(f"data_id IN ({_quote(batch)})")
            except Exception as exc:
                raise StoreError(f"LanceDB could not delete chunks: {exc}") from exc

    def purge_deleted(self) -> None:
        """Take deleted rows out of the files of every table (``lance_purge``), old
        versions included (and drop the unused full-text index older stores kept). A
        no-op on shared tables: other processes may be reading their older versions.

        Raises:
            StoreError: LanceDB failed; the rows stay deleted, their bytes on disk
                until the next purge.
        """
        if self.shared:
            return
        try:
            drop_text_indexes(self._chunks)
            purge_deleted(self._chunks)
            self.graph.purge_deleted()
        except Exception as exc:
            raise failure(exc, self._location, self._name, "clean up") from exc

    def take_data(self, data_ids: Sequence[str]) -> pa.Table:
        """The chunk rows of ``data_ids`` as stored (every column), for ``put_back``.

        Raises:
            StoreError: the table could not be read.
        """
        return rows_of_data(self._chunks, data_ids)

    def put_back(self, rows: pa.Table) -> None:
        """Append rows ``take_data`` read, unchanged, in one LanceDB commit.

        Raises:
            StoreError: LanceDB refused them.
        """
        if rows.num_rows:
            try:
                self._chunks.add(rows)
            except Exception as exc:
                raise StoreError(f"LanceDB refused {rows.num_rows} chunks: {exc}") from exc

    def data_ids(self) -> set[str]:
        table = self._chunks.to_arrow().select(["data_id"])
        return set(table.column("data_id").to_pylist())

    def data_ids_with_chunks(self, data_ids: Sequence[str]) -> set[str]:
        """Those of ``data_ids`` with at least one chunk row.

        Raises:
            StoreError: the table could not be read.
        """
        return self._data_ids_where(data_ids, "TRUE")

    def data_ids_without_sentences(self, data_ids: Sequence[str]) -> set[str]:
        """Those of ``data_ids`` with a chunk whose sentence vectors were never
        computed (stored before they existed, or with ``sentence_vectors`` off).

        Raises:
            StoreError: the table could not be read.
        """
        return self._data_ids_where(data_ids, f"{SENTENCES} IS NULL")

    def _data_ids_where(self, data_ids: Sequence[str], condition: str) -> set[str]:
        """Those of ``data_ids`` with a chunk row that meets ``condition`` (SQL)."""
        found: set[str] = set()
        try:
            for at in range(0, len(data_ids), ID_BATCH):
                batch = list(data_ids[at : at + ID_BATCH])
                rows = (
                    self._chunks.search()
                    .where(f"data_id IN ({_quote(batch)}) AND {condition}", prefilter=True)
                    .select(["data_id"])
                    .limit(None)
                    .to_arrow()
                )
                found.update(rows.column("data_id").to_pylist())
        except Exception as exc:
            raise failure(exc, self._location, self._name, "read") from exc
        return found

    def load_chunks(
        self,
    ) -> tuple[list[ChunkRecord], np.ndarray, list[list[str]], list[np.ndarray]]:
        """Every stored chunk, its vector, its tokens and its sentence vectors, in
        storage order."""
        return self._records(self._chunks.to_arrow())

    def chunk_changes(
        self,
        since: TableState | None,
        *,
        have: Callable[[str], bool] = lambda _: False,
        mirrored: Callable[[], set[str]] | None = None,
    ) -> tuple[TableState, ChunkChanges | None]:
        """What the chunks table holds now that it did not at ``since`` (None: ever).

        One version request when nothing changed; otherwise a scan of the row ids
        and a fetch of the new rows only, less those whose chunk id ``have`` says
        the mirror holds (this process's own writes); ``mirrored``: the chunk ids
        the mirror holds, of which those gone from the table are ``gone``. A row deleted and written
        again (same id) comes back in both ``gone`` and ``records``; the caller
        drops, then adds.

        Raises:
            StoreError: the table could not be read.
        """
        try:
            found = listing_changes(self._chunks, since, have, mirrored)
            if found is None:
                assert since is not None
                return since, None
            state, gone, wanted = found
            fetched = take_rows(self._chunks, wanted)
        except Exception as exc:
            raise failure(exc, self._location, self._name, "read") from exc
        records, vectors, tokens, sentences = self._records(fetched)
        return state, ChunkChanges(gone, records, vectors, tokens, sentences)

    def _records(
        self, table: pa.Table
    ) -> tuple[list[ChunkRecord], np.ndarray, list[list[str]], list[np.ndarray]]:
        if table.num_rows == 0:
            return [], np.zeros((0, self.dimension), dtype=np.float32), [], []
        cols: dict[str, list[Cell]] = {
            name: table.column(name).to_pylist()
            for name in table.column_names
            if name not in ("vector", SENTENCES, "_rowid")
        }
        vectors = (
            table.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        ).reshape(-1, self.dimension)
        records = [
            ChunkRecord(
                id=cols["id"][i],
                data_id=cols["data_id"][i],
                dataset_id=cols["dataset_id"][i],
                dataset_name=cols["dataset_name"][i],
                chunk_index=int(cols["chunk_index"][i]),
                text=cols["text"][i],
                document_name=cols["document_name"][i],
                metadata=json.loads(cols["metadata_json"][i] or "{}"),
                message_ids=tuple(cols["message_ids"][i] or ()),
                speaker=cols["speaker"][i],
                timestamp=cols["timestamp"][i],
                created_at=cols["created_at"][i] or "",
            )
            for i in range(table.num_rows)
        ]
        sentences = sentence_lists(table, self.dimension)
        return records, np.asarray(vectors, dtype=np.float32), cols["tokens"], sentences

    def count(self) -> int:
        return int(self._chunks.count_rows())
