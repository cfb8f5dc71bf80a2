"""The engine's HydraDB-style tenant API (``recall_engine.tenants``): thin, typed
delegations to one ``TenantAPI`` per engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from recall_engine.core.hydra import (
        AddMemoryResponse,
        CustomPropertyDefinition,
        KnowledgeSource,
        MemoryItem,
        RecallSearchRequest,
        RetrievalResult,
        SourceUploadResponse,
        TenantCreateAcceptedResponse,
    )
    from recall_engine.tenants import TenantAPI


class TenantsMixin:
    """The tenant API of a ``RecallEngine`` (mixed into it)."""

    if TYPE_CHECKING:

        @property
        def tenants(self) -> TenantAPI: ...

    async def create_tenant(
        self,
        tenant_id: str,
        metadata_schema: Sequence[CustomPropertyDefinition | dict[str, Any]] | None = None,
    ) -> TenantCreateAcceptedResponse:
        """Create a tenant; ``metadata_schema`` declares its filterable metadata fields.
        See ``TenantAPI.create_tenant``."""
        return await self.tenants.create_tenant(tenant_id, metadata_schema)

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[MemoryItem | dict[str, Any]],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> AddMemoryResponse:
        """Store memories in a sub-tenant. See ``TenantAPI.add_memory``."""
        return await self.tenants.add_memory(
            tenant_id, memories, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[KnowledgeSource | dict[str, Any]] = (),
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge. See ``TenantAPI.upload_knowledge``."""
        return await self.tenants.upload_knowledge(
            tenant_id, sources, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def full_recall(
        self, request: RecallSearchRequest | dict[str, Any] | None = None, **fields: Any
    ) -> RetrievalResult:
        """Hybrid search of knowledge; returns a ``RetrievalResult``."""
        return await self.tenants.full_recall(request, **fields)

    async def recall_preferences(
        self, request: RecallSearchRequest | dict[str, Any] | None = None, **fields: Any
    ) -> RetrievalResult:
        """Hybrid search of memories; returns a ``RetrievalResult``."""
        return await self.tenants.recall_preferences(request, **fields)

    async def boolean_recall(
        self,
        tenant_id: str,
        query: str,
        *,
        operator: Literal["or", "and", "phrase"] = "or",
        search_mode: Literal["sources", "memories"] = "sources",
        sub_tenant_id: str | None = None,
        max_results: int | None = None,
    ) -> RetrievalResult:
        """Exact lexical search (or / and / phrase). See ``TenantAPI.boolean_recall``."""
        return await self.tenants.boolean_recall(
            tenant_id,
            query,
            operator=operator,
            search_mode=search_mode,
            sub_tenant_id=sub_tenant_id,
            max_results=max_results,
        )
