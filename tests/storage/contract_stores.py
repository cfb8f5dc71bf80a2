"""The store implementations the ``GraphStore`` / ``VectorStore`` contract suites run on.

A new backend (a graph server, object storage) joins by adding a factory to
``GRAPH_STORES`` or ``VECTOR_STORES``: every contract test then runs on it too.
Each factory opens a fresh, empty store under a tmp dir.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.storage.lance_vectors import LanceVectorStore
from tests.storage import falkordb_live, moto_s3

DIMENSION = 4

GRAPH_STORES: dict[str, Callable[[Path], Any]] = {
    "kuzu": lambda root: KuzuGraphStore(root / "graph.kuzu"),
    # A graph of its own on a real FalkorDB server (started once per session).
    "falkordb": lambda root: falkordb_live.fresh_store(),
    # The same, claimed by a writer as a replica's lease holder claims it: every
    # write runs fenced (``falkordb_writes``).
    "falkordb-fenced": lambda root: falkordb_live.fresh_store(writer="contract-writer"),
}
VECTOR_STORES: dict[str, Callable[[Path], Any]] = {
    "lancedb": lambda root: LanceVectorStore(root / "vectors", DIMENSION),
    # LanceDB at an s3:// URI on a real moto server (started once per session).
    "lancedb-s3": lambda root: LanceVectorStore(
        moto_s3.server().fresh_uri(), DIMENSION, storage_options=moto_s3.server().options
    ),
}


@pytest.fixture(params=sorted(GRAPH_STORES))
def graph_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    store = GRAPH_STORES[request.param](tmp_path)
    yield store
    store.close()


@pytest.fixture(params=sorted(VECTOR_STORES))
def vector_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    yield VECTOR_STORES[request.param](tmp_path)
