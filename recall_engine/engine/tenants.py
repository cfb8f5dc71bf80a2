"""The engine's HydraDB-style tenant API (``recall_engine.tenants``).

Thin, typed delegations to one ``TenantAPI`` per engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

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
        def tenants(self) -> TenantAPI:
            """The engine's tenant API (``RecallEngine.tenants``)."""
            ...

    async def create_tenant(
        self,
        tenant_id: str,
        metadata_schema: Sequence[CustomPropertyDefinition | dict[str, object]] | None = None,
    ) -> TenantCreateAcceptedResponse:
        """Create a tenant: a store of its own.

        Args:
            tenant_id: the new tenant's id (1-100 printable characters).
            metadata_schema: the tenant's metadata fields; those with ``enable_match``
                can be used in ``metadata_filters``.

        Returns:
            HydraDB's answer to a created tenant.

        Raises:
            InvalidInputError: a bad tenant id or schema.
            TenantAlreadyExistsError: the tenant exists.
        """
        return await self.tenants.create_tenant(tenant_id, metadata_schema)

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[MemoryItem | dict[str, object]],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> AddMemoryResponse:
        """Store memories (user preferences, facts) in a sub-tenant.

        Args:
            tenant_id: the tenant.
            memories: ``MemoryItem``s or dicts of their fields (``text``, ``tenant_metadata``,
                ``expiry_time``, ...).
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a memory with the same source id instead of failing it.

        Returns:
            One result per memory (stored, or failed with the reason).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad item or id.
        """
        return await self.tenants.add_memory(
            tenant_id, memories, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[KnowledgeSource | dict[str, object]] = (),
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge.

        Args:
            tenant_id: the tenant.
            sources: ``KnowledgeSource``s or dicts of their fields.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a source with the same id instead of failing it.

        Returns:
            One result per source. Ingestion is synchronous: a stored source is searchable.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad source or id.
        """
        return await self.tenants.upload_knowledge(
            tenant_id, sources, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def full_recall(
        self, request: RecallSearchRequest | dict[str, object] | None = None, **fields: object
    ) -> RetrievalResult:
        """Search a sub-tenant's knowledge, as HydraDB's ``full_recall``.

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, instead of ``request``.

        Returns:
            The chunks, their sources and, when asked, the graph context.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
        """
        return await self.tenants.full_recall(request, **fields)

    async def recall_preferences(
        self, request: RecallSearchRequest | dict[str, object] | None = None, **fields: object
    ) -> RetrievalResult:
        """Search a sub-tenant's memories (the same request as ``full_recall``).

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, instead of ``request``.

        Returns:
            The memories that match, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
        """
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
        """Exact lexical search of a sub-tenant.

        Args:
            tenant_id: the tenant.
            query: the words or phrase to find.
            operator: ``"or"`` (any word), ``"and"`` (every word) or ``"phrase"``.
            search_mode: ``"sources"`` (knowledge) or ``"memories"``.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            max_results: the most chunks returned; None is the default.

        Returns:
            The matching chunks, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: an empty query or a bad option.
        """
        return await self.tenants.boolean_recall(
            tenant_id,
            query,
            operator=operator,
            search_mode=search_mode,
            sub_tenant_id=sub_tenant_id,
            max_results=max_results,
        )
