"""``StoreReader``: the read API over one tenant's graph and vector stores.

Composed of one part per group of ``read.api.ReadAPI``: vector and BM25 chunk
searches on the tenant store's in-memory indexes (``chunk_reader``), graph
elements and walks through ``GraphStore``'s typed reads (``graph_reader``),
bulk structure from the in-memory snapshot (``structure_reader``), the
caller's read-only Cypher (``cypher_reader``) and facts with their validity
(``fact_reader``). Everything is filtered to the
reader's dataset scope (``scoped``), and blocking work runs in a worker thread
so the event loop stays free.
"""

from __future__ import annotations

from recall_engine.read.chunk_reader import ChunkReader
from recall_engine.read.cypher_reader import CypherReader
from recall_engine.read.fact_reader import FactReader
from recall_engine.read.graph_reader import GraphReader
from recall_engine.read.structure_reader import StructureReader


class StoreReader(ChunkReader, GraphReader, StructureReader, CypherReader, FactReader):
    """A read-only, scoped view of one tenant store (implements ``ReadAPI``)."""
