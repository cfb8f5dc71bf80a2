"""The tenant API of the remote client: HydraDB's paths (``/tenants``, ``/memories``,
``/ingestion``, ``/recall``) over the server's HTTP API."""

from __future__ import annotations

from collections.abc import Sequence

from recall_engine.core import hydra as tm
from recall_engine.remote.transport import RemoteTransport
from recall_engine.remote.wire import request_body


class RemoteTenantCalls(RemoteTransport):
    """The tenant API's calls, sent to the server's HydraDB routes."""

    async def create_tenant(
        self, tenant_id: str, metadata_schema: Sequence[object] | None = None
    ) -> tm.TenantCreateAcceptedResponse:
        """Create a tenant, a store of its own (``POST /tenants/create``).

        Args:
            tenant_id: the new tenant's id (1-100 printable characters).
            metadata_schema: the tenant's metadata fields (``CustomPropertyDefinition``s
                or dicts); those with ``enable_match`` can be used in ``metadata_filters``.

        Returns:
            HydraDB's answer to a created tenant.

        Raises:
            InvalidInputError: a bad tenant id or schema.
            TenantAlreadyExistsError: the tenant exists.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "tenant_metadata_schema": metadata_schema}
        return await self._post("/tenants/create", tm.TenantCreateAcceptedResponse, body)

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[object],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> tm.AddMemoryResponse:
        """Store memories in a sub-tenant (``POST /memories/add_memory``).

        Args:
            tenant_id: the tenant.
            memories: ``MemoryItem``s or dicts of their fields.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a memory with the same source id instead of failing it.

        Returns:
            One result per memory (stored, or failed with the reason).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad item or id.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "memories": list(memories), "upsert": upsert}
        if sub_tenant_id is not None:
            body["sub_tenant_id"] = sub_tenant_id
        return await self._post("/memories/add_memory", tm.AddMemoryResponse, body)

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[object] = (),
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> tm.SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge (``POST /ingestion/upload_knowledge``).

        Args:
            tenant_id: the tenant.
            sources: ``KnowledgeSource``s or dicts of their fields.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a source with the same id instead of failing it.

        Returns:
            One result per source; a stored source is searchable.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad source or id.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "app_sources": list(sources), "upsert": upsert}
        if sub_tenant_id is not None:
            body["sub_tenant_id"] = sub_tenant_id
        path = "/ingestion/upload_knowledge"
        return await self._post(path, tm.SourceUploadResponse, body)

    async def full_recall(self, request: object = None, **fields: object) -> tm.RetrievalResult:
        """Search a sub-tenant's knowledge (``POST /recall/full_recall``).

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The chunks, their sources and, when asked, the graph context.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = request_body(request, fields)
        return await self._post("/recall/full_recall", tm.RetrievalResult, body)

    async def recall_preferences(
        self, request: object = None, **fields: object
    ) -> tm.RetrievalResult:
        """Search a sub-tenant's memories (``POST /recall/recall_preferences``).

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The memories that match, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = request_body(request, fields)
        path = "/recall/recall_preferences"
        return await self._post(path, tm.RetrievalResult, body)

    async def boolean_recall(
        self, tenant_id: str, query: str, **options: object
    ) -> tm.RetrievalResult:
        """Exact lexical search of a sub-tenant (``POST /recall/boolean_recall``).

        Args:
            tenant_id: the tenant.
            query: the words or phrase to find.
            **options: ``operator``, ``search_mode``, ``sub_tenant_id``, ``max_results``
                (see ``RecallEngine.boolean_recall``).

        Returns:
            The matching chunks, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: an empty query or a bad option.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "query": query, **options}
        return await self._post("/recall/boolean_recall", tm.RetrievalResult, body)

    async def qna(self, request: object = None, **fields: object) -> tm.QnASearchResponse:
        """A question answered from a sub-tenant's knowledge (``POST /recall/qna``).

        Args:
            request: a ``QnARequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The answer and the chunks it was built from.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad request.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = request_body(request, fields)
        return await self._post("/recall/qna", tm.QnASearchResponse, body)
