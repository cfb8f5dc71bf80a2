"""``TenantAPI``: HydraDB's recall API on the engine.

A HydraDB tenant is an engine tenant (its own Kuzu + LanceDB store); each
sub-tenant holds two datasets, ``kb:<sub>`` (knowledge, searched by
``full_recall``) and ``mem:<sub>`` (memories, searched by
``recall_preferences``). A search reads through a ``TenantReader`` bound to the
one dataset asked for, so no call sees another tenant's or sub-tenant's data.
Ingestion returns once the data is durable and searchable.

The class is composed of its parts: ``tenants.base`` (the engine port and what
every part shares), ``tenants.ingest`` (writes), ``tenants.search`` (searches)
and ``tenants.sources`` (listing and fetching); this module adds the tenants.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hydra import (
    CustomPropertyDefinition,
    TenantCreateAcceptedResponse,
)
from recall_engine.tenants.ingest import TenantIngest
from recall_engine.tenants.search import TenantSearch
from recall_engine.tenants.sources import TenantSources


class TenantAPI(TenantIngest, TenantSearch, TenantSources):
    """HydraDB-style tenants, memories, knowledge and recall over one engine."""

    # tenants

    async def create_tenant(
        self,
        tenant_id: str,
        metadata_schema: Sequence[CustomPropertyDefinition | Mapping[str, object]] | None = None,
    ) -> TenantCreateAcceptedResponse:
        """Create a tenant with its own store; ``metadata_schema`` declares its
        tenant-level metadata fields (``enable_match``: usable in metadata_filters).

        Raises:
            InvalidInputError: a bad tenant id or schema.
            TenantAlreadyExistsError: the tenant exists.
        """
        name = self.registry.store_name(tenant_id)
        fields = [
            CustomPropertyDefinition.model_validate(f).model_dump(exclude_none=True)
            for f in metadata_schema or ()
        ]
        names = [f["name"] for f in fields]
        if len(set(names)) != len(names):
            raise InvalidInputError("metadata_schema names a field twice; give each field once.")
        await asyncio.to_thread(self.engine.open, name)
        self.registry.create(tenant_id, fields)
        return TenantCreateAcceptedResponse(
            status="created", tenant_id=tenant_id, message=f"tenant {tenant_id!r} is ready"
        )

    async def delete_tenant(self, tenant_id: str) -> None:
        """Delete a tenant and everything stored in it.

        Raises:
            TenantNotFoundError: no such tenant.
        """
        self._record(tenant_id)
        await self.engine.drop_tenant(self.registry.store_name(tenant_id))
        self.registry.delete(tenant_id)  # its API keys too

    def sub_tenant_ids(self, tenant_id: str) -> list[str]:
        self._record(tenant_id)
        return self.registry.sub_tenants(tenant_id)
