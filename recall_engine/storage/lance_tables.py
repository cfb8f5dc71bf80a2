"""The chunks table's schema and the LanceDB table helpers of ``lance_vectors``:
opening or creating the table, sentence-vector cells, failures as ``StoreError``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from recall_engine.core.errors import StoreError
from recall_engine.storage.vector_location import failure_message

if TYPE_CHECKING:
    from lancedb.db import DBConnection
    from lancedb.table import Table

CHUNKS = "chunks"
SENTENCES = "sentence_vectors"
"""The chunks table's column of each chunk's sentence vectors (null: never computed,
stored before the column existed or with ``sentence_vectors`` off)."""
MODEL_KEY = b"recall_engine.embedding_model"


def chunk_schema(dimension: int) -> pa.Schema:
    """The chunks table's schema for vectors of ``dimension``.

    Args:
        dimension: the embedding model's dimension.

    Returns:
        The Arrow schema.
    """
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
            pa.field(SENTENCES, pa.list_(pa.list_(pa.float32(), dimension))),
        ]
    )


def failure(exc: Exception, location: Path | str, name: str, action: str) -> StoreError:
    """A LanceDB failure as a ``StoreError`` that names the setting to fix.

    Args:
        exc: what LanceDB raised.
        location: the store's URI (a setting), or its local folder (never shown).
        name: the tenant.
        action: what failed (``open``, ``read``, ``write``).

    Returns:
        The error to raise, chained to ``exc``.
    """
    if isinstance(location, str):
        return StoreError(failure_message(exc, location, name, action=action))
    return StoreError(  # no path, no LanceDB text: the message may reach an HTTP client
        f"Could not {action} the vector store of tenant {name!r} "
        f"({type(exc).__name__}; the cause is chained to this error)."
    )


def sentence_array(per_chunk: Sequence[np.ndarray], dimension: int) -> pa.Array:
    """Each chunk's (sentences x dimension) vectors as one list-of-vectors cell."""
    counts = np.array([len(v) for v in per_chunk], dtype=np.int32)
    flat = (
        np.concatenate([np.asarray(v, dtype=np.float32).ravel() for v in per_chunk])
        if counts.sum()
        else np.zeros(0, dtype=np.float32)
    )
    rows = pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), dimension)
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    return pa.ListArray.from_arrays(offsets, rows)


def sentence_lists(table: pa.Table, dimension: int) -> list[np.ndarray]:
    """The sentence vectors of each row (none for a null cell: never computed)."""
    n = table.num_rows
    if SENTENCES not in table.column_names:
        return [np.zeros((0, dimension), dtype=np.float32)] * n
    column = table.column(SENTENCES).combine_chunks()
    lengths = column.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    flat = column.flatten().flatten().to_numpy(zero_copy_only=False)
    vectors = np.asarray(flat, dtype=np.float32).reshape(-1, dimension)
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    return [vectors[bounds[i] : bounds[i + 1]] for i in range(n)]


def add_sentence_column(table: Table, dimension: int) -> None:
    """Give a chunks table made before sentence vectors their (null) column."""
    if SENTENCES in table.schema.names:
        return
    table.add_columns(chunk_schema(dimension).field(SENTENCES))


def open_or_create(db: DBConnection, schema: pa.Schema) -> Table:
    """The chunks table as it is (its schema is checked afterwards), or a new one."""
    if CHUNKS in table_names(db):
        return db.open_table(CHUNKS)
    try:
        return db.create_table(CHUNKS, schema=schema)
    except Exception:
        if CHUNKS in table_names(db):  # another process made it meanwhile
            return db.open_table(CHUNKS)
        raise


def table_names(db: DBConnection) -> set[str]:
    """The names of the tables at a LanceDB connection."""
    return set(db.table_names(limit=1000))


def tables_exist(uri: str, storage_options: Mapping[str, str], tenant: str) -> bool:
    """Whether a store's chunks table exists at ``uri`` (another process made it).

    Raises:
        StoreError: the location cannot be read (the message names the setting to fix).
    """
    import lancedb

    try:
        db = lancedb.connect(uri, storage_options=dict(storage_options))
        return CHUNKS in table_names(db)
    except Exception as exc:
        raise StoreError(failure_message(exc, uri, tenant)) from exc


def drop_tables(uri: str, storage_options: Mapping[str, str], tenant: str) -> None:
    """Delete every table of the store at ``uri`` (its chunks and graph vectors).

    Raises:
        StoreError: the location cannot be written (the message names the setting to fix).
    """
    import lancedb

    try:
        lancedb.connect(uri, storage_options=dict(storage_options)).drop_all_tables()
    except Exception as exc:
        raise StoreError(failure_message(exc, uri, tenant, action="delete")) from exc
