"""Opening a tenant's backends: its meta file (embedding model, dimension, graph
home), its graph (Kuzu in the folder, or its graph on a FalkorDB server) and its
LanceDB tables (in the folder, or at a shared location). ``TenantStore.open``
builds the store on them."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from recall_engine.core.cells import Record
from recall_engine.core.errors import ConfigError, EmbeddingModelMismatchError, StoreError
from recall_engine.storage.fact_times import Stamp
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.falkordb_home import check_home, check_unclaimed, graph_home
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.kuzu_graph import KuzuGraphStore
from recall_engine.storage.lance_vectors import LanceVectorStore
from recall_engine.storage.protocols import GraphStore
from recall_engine.storage.vector_location import SharedVectors

SCHEMA_VERSION = 1
META_FILE = "store.json"


def open_graph(
    root: Path, server: FalkorServer | None, *, stamp: Stamp | None = None
) -> GraphStore:
    """The tenant's graph: its own graph on the FalkorDB server when there is one
    (named after the store's folder, so every replica finds the same one), else
    an embedded Kuzu database in the folder (``stamp``: see ``KuzuGraphStore`` and
    ``FalkorGraphStore``)."""
    if server is not None:
        return FalkorGraphStore(server, root.name, stamp=stamp)
    return KuzuGraphStore(root / "graph.kuzu", stamp=stamp)


def read_meta(path: Path, tenant_id: str) -> Record:
    """The store's meta file, checked to be one this version can open.

    Raises:
        StoreError: the file is not a JSON object (damaged, or not ours).
        ConfigError: a newer recall-engine wrote the store (its ``schema_version`` is
            above ``SCHEMA_VERSION``); nothing is opened, so nothing changes.
    """
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(
            f"The store of tenant {tenant_id!r} has a meta file ({META_FILE}) that cannot "
            f"be read ({type(exc).__name__}); restore it from a backup of the data dir."
        ) from None
    if not isinstance(meta, dict):
        raise StoreError(
            f"The store of tenant {tenant_id!r} has a meta file ({META_FILE}) that is not "
            "a JSON object; restore it from a backup of the data dir."
        )
    version = meta.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ConfigError(
            f"The store of tenant {tenant_id!r} was written by a newer recall-engine (store "
            f"layout {version!r}; this version opens layouts up to {SCHEMA_VERSION}). "
            "Upgrade recall-engine to open it; nothing was changed."
        )
    return meta


def open_backends(
    root: Path,
    tenant_id: str,
    *,
    model_id: str,
    dimension: Callable[[], int],
    shared: SharedVectors | None = None,
    graph_server: FalkorServer | None = None,
    stamp: Stamp | None = None,
) -> tuple[GraphStore, LanceVectorStore, Record]:
    """The graph, the vector tables and the meta of the store under ``root``
    (``TenantStore.open`` has the arguments; ``stamp``: graph extraction's
    ``supersession.stamp``, which dates the facts a graph kept from before facts
    had time, ``fact_times``); the meta file is written when new.

    Raises:
        EmbeddingModelMismatchError: the store was built with another embedding model.
        ConfigError: the store was made with another graph (``falkordb_home``), or by a
            newer version of recall-engine (``SCHEMA_VERSION``).
        StoreError: a backend could not be opened, or the meta file cannot be read.
    """
    meta_path = root / META_FILE
    home = graph_home(graph_server, root.name)
    if meta_path.is_file():
        meta = read_meta(meta_path, tenant_id)
        check_home(meta, home, tenant_id=tenant_id)
        if meta.get("embedding_model") != model_id:
            raise EmbeddingModelMismatchError(
                f"The store of tenant {tenant_id!r} was built with embedding model "
                f"{meta.get('embedding_model')!r}, but this engine uses {model_id!r}. "
                "Vectors from different models cannot be compared: configure the original "
                "model, or use a new data dir and remember() your data again."
            )
    else:
        meta = {
            "embedding_model": model_id,
            "dimension": int(dimension()),
            "schema_version": SCHEMA_VERSION,
            "tenant_id": tenant_id,
            "created_at": datetime.now(UTC).isoformat(),
            "graph": home,
        }
    if shared is not None:
        vectors = LanceVectorStore(
            shared.store_uri(root.name),
            int(meta["dimension"]),
            storage_options=shared.options,
            model_id=model_id,
        )
        root.mkdir(parents=True, exist_ok=True)
        graph = open_graph(root, graph_server, stamp=stamp)
    else:
        root.mkdir(parents=True, exist_ok=True)
        graph = open_graph(root, graph_server, stamp=stamp)
        try:
            if graph_server is not None and not meta_path.is_file():
                check_unclaimed(graph, tenant_id=tenant_id)
            vectors = LanceVectorStore(root / "vectors", int(meta["dimension"]))
        except Exception:
            graph.close()
            raise
    if not meta_path.is_file():
        tmp = meta_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(meta, indent=2), encoding="utf-8")
        tmp.replace(meta_path)
    return graph, vectors, meta
