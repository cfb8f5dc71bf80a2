"""HydraDB-style multi-tenant recall on the engine: tenants and sub-tenants,
memories and knowledge, hybrid ``full_recall`` / ``recall_preferences``,
``boolean_recall``, and ``build_context_string``."""

from recall_engine.core.hydra import (
    AddMemoryResponse,
    GraphContext,
    KnowledgeSource,
    MemoryItem,
    RecallSearchRequest,
    RetrievalResult,
    SourceInfo,
    VectorStoreChunk,
)
from recall_engine.tenants.context_string import build_context_string
from recall_engine.tenants.service import TenantAPI

__all__ = [
    "AddMemoryResponse",
    "GraphContext",
    "KnowledgeSource",
    "MemoryItem",
    "RecallSearchRequest",
    "RetrievalResult",
    "SourceInfo",
    "TenantAPI",
    "VectorStoreChunk",
    "build_context_string",
]
