"""LanceDB adapter: the durable home of chunk vectors, text and provenance, and
of the graph's vector tables (``lance_graph``).

The only module that imports ``lancedb``. Tables use cosine distance; the chunks
table also carries a full-text index and the BM25 tokens of each chunk, so the
in-memory lexical index is rebuilt on open without re-tokenising.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from recall_engine.core.errors import StoreError
from recall_engine.storage.lance_graph import LanceGraphTables
from recall_engine.storage.records import ChunkRecord

CHUNKS = "chunks"


def chunk_schema(dimension: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("id", pa.string()),
            pa.field("data_id", pa.string()),
            pa.field("dataset_id", pa.string()),
            pa.field("dataset_name", pa.string()),
            pa.field("chunk_index", pa.int32()),
            pa.field("text", pa.string()),
            pa.field("document_name", pa.string()),
            pa.field("metadata_json", pa.string()),
            pa.field("message_ids", pa.list_(pa.string())),
            pa.field("speaker", pa.string()),
            pa.field("timestamp", pa.string()),
            pa.field("created_at", pa.string()),
            pa.field("tokens", pa.list_(pa.string())),
            pa.field("vector", pa.list_(pa.float32(), dimension)),
        ]
    )


def _quote(values: Sequence[str]) -> str:
    """A SQL IN-list of string literals; ids are generated hex/uuid strings."""
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


class LanceVectorStore:
    """Chunks, and the vectors of entities, relations, summaries and events, in LanceDB."""

    def __init__(self, path: Path, dimension: int) -> None:
        import lancedb

        self.dimension = dimension
        try:
            self._db = lancedb.connect(str(path))
            self._chunks = self._db.create_table(
                CHUNKS, schema=chunk_schema(dimension), exist_ok=True
            )
            self.graph = LanceGraphTables(self._db, dimension)
        except Exception as exc:
            raise StoreError(  # no path, no LanceDB text: the message may reach an HTTP client
                f"Could not open the vector store of tenant {path.parent.name!r} "
                f"({type(exc).__name__}; the cause is chained to this error)."
            ) from exc
        self._fts_ready = self._has_fts_index()

    def _has_fts_index(self) -> bool:
        try:
            return any("text" in idx.columns for idx in self._chunks.list_indices())
        except Exception:
            return False

    def add_chunks(
        self, records: Sequence[ChunkRecord], vectors: np.ndarray, tokens: Sequence[Sequence[str]]
    ) -> None:
        """Append chunks in one LanceDB commit."""
        if not records:
            return
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
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
            },
            schema=chunk_schema(self.dimension),
        )
        try:
            self._chunks.add(table)
        except Exception as exc:
            raise StoreError(f"LanceDB refused {len(records)} chunks: {exc}") from exc

    def ensure_fts_index(self) -> None:
        """Build the full-text index once there is text to index."""
        if self._fts_ready or self._chunks.count_rows() == 0:
            return
        from lancedb.index import FTS

        self._chunks.create_index("text", config=FTS(), replace=True)
        self._fts_ready = True

    def delete_data(self, data_ids: Sequence[str]) -> None:
        """Delete every chunk of the given data items."""
        for start in range(0, len(data_ids), 500):
            batch = data_ids[start : start + 500]
            try:
                self._chunks.delete(f"data_id IN ({_quote(batch)})")
            except Exception as exc:
                raise StoreError(f"LanceDB could not delete chunks: {exc}") from exc

    def data_ids(self) -> set[str]:
        table = self._chunks.to_arrow().select(["data_id"])
        return set(table.column("data_id").to_pylist())

    def load_chunks(self) -> tuple[list[ChunkRecord], np.ndarray, list[list[str]]]:
        """Every stored chunk, its vector and its tokens, in storage order."""
        table = self._chunks.to_arrow()
        if table.num_rows == 0:
            return [], np.zeros((0, self.dimension), dtype=np.float32), []
        cols: dict[str, list[Any]] = {
            name: table.column(name).to_pylist()
            for name in table.column_names
            if name not in ("vector",)
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
        return records, np.asarray(vectors, dtype=np.float32), cols["tokens"]

    def full_text_search(
        self, query: str, k: int, dataset_ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """LanceDB's own BM25 full-text search: (chunk id, score) pairs."""
        self.ensure_fts_index()
        search = self._chunks.search(query, query_type="fts").limit(k)
        if dataset_ids is not None:
            search = search.where(f"dataset_id IN ({_quote(list(dataset_ids))})", prefilter=True)
        return [(row["id"], float(row["_score"])) for row in search.to_list()]

    def count(self) -> int:
        return int(self._chunks.count_rows())
