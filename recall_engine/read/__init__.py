"""The retrieval read API: an async, read-only view of one tenant, bound to a
dataset scope. Retrievers see only ``recall_engine.read.api.ReadAPI``; the
implementation over Kuzu + LanceDB lives in ``recall_engine.read.store_reader``.
"""
