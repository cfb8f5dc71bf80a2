"""Text embeddings: the ``Embedder`` protocol, its two backends and the factory.

``embedder`` holds the protocol, ``make_embedder`` and the sentence-transformers
backend; ``onnx`` the ONNX Runtime backend of the packaged model (``python -m
recall_engine.embedding.onnx`` exports it ahead of time); ``common`` what both
share (the query-vector cache, the packaged model's folder, vector checks).
"""

from recall_engine.embedding.embedder import (
    PACKAGED_MODEL_ID,
    QUERY_CACHE,
    QUERY_CACHE_SIZE,
    Embedder,
    QueryCache,
    SentenceTransformerEmbedder,
    WrappedEmbedder,
    check_model_reachable,
    default_threads,
    embed_queries,
    embed_query,
    make_embedder,
    packaged_model_dir,
)

__all__ = [
    "PACKAGED_MODEL_ID",
    "QUERY_CACHE",
    "QUERY_CACHE_SIZE",
    "Embedder",
    "QueryCache",
    "SentenceTransformerEmbedder",
    "WrappedEmbedder",
    "check_model_reachable",
    "default_threads",
    "embed_queries",
    "embed_query",
    "make_embedder",
    "packaged_model_dir",
]
