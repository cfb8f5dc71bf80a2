"""Deleting a tenant store everywhere it lives.

Its folder in the data dir, and, where they are shared (the distributed
profile), its tables at the shared vector location and its graph on the graph
server: those outlive the folder, and a tenant made again under the same name
(or another replica) would otherwise find the deleted data there. The tables go
first and the graph next, so a failure half-way leaves the tenant in place for a
retry of the same call (the caller forgets the tenant only once this returns).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.lance_vectors import drop_tables
from recall_engine.storage.vector_location import SharedVectors


def drop_store(
    root: Path, *, shared: SharedVectors | None, graph_server: FalkorServer | None
) -> None:
    """Delete the store whose folder is ``root`` (its name names it elsewhere too).

    Raises:
        StoreError: a shared store could not be reached; what it still holds stays.
    """
    if shared is not None:
        drop_tables(shared.store_uri(root.name), shared.options, root.name)
    if graph_server is not None:
        graph_server.drop_graph(root.name)
    shutil.rmtree(root, ignore_errors=True)
