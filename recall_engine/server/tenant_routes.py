"""HydraDB v1 tenant endpoints: create, delete, sub-tenant ids, status, monitor.

A body field or query parameter a call does not take is refused with 422
(``server.request_fields``): dropped, ``/tenants/delete?tenant_id=t&sub_tenant_id=s``
would delete the whole tenant, not the sub-tenant it names.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from recall_engine.core.hydra import TenantCreateAcceptedResponse, TenantCreateRequest
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, not_implemented
from recall_engine.server.request_fields import known_query
from recall_engine.server.responses import (
    CollectionStats,
    InfraFlags,
    InfraStatusResponse,
    MonitorResponse,
    SubTenantIdsResponse,
    TenantDeleteResponse,
)
from recall_engine.tenants import TenantAPI


def tenant_router(api: TenantAPI, auth: Authenticator) -> APIRouter:
    """Tenant endpoints over ``api``."""
    router = APIRouter(responses=ERROR_RESPONSES)

    # tenants

    @router.post("/tenants/create", tags=["tenants"])
    async def create_tenant(
        body: TenantCreateRequest, who: Principal = Depends(auth)
    ) -> TenantCreateAcceptedResponse:
        who.check(body.tenant_id)
        if body.is_embeddings_tenant:
            not_implemented("An embeddings tenant (bring-your-own vectors)")
        return await api.create_tenant(body.tenant_id, body.tenant_metadata_schema)

    @router.delete("/tenants/delete", tags=["tenants"])
    async def delete_tenant(
        tenant_id: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> TenantDeleteResponse:
        who.check(tenant_id)
        await api.delete_tenant(tenant_id)
        return TenantDeleteResponse(tenant_id=tenant_id, status="deleted", message="tenant deleted")

    @router.get("/tenants/sub_tenant_ids", tags=["tenants"])
    async def sub_tenant_ids(
        tenant_id: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> SubTenantIdsResponse:
        who.check(tenant_id)
        ids = api.sub_tenant_ids(tenant_id)
        return SubTenantIdsResponse(sub_tenant_ids=ids, message=f"{len(ids)} sub-tenants")

    @router.get("/tenants/infra/status", tags=["tenants"])
    async def infra_status(
        tenant_id: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> InfraStatusResponse:
        who.check(tenant_id)
        await api.stats(tenant_id)  # opens the store: 404 / 503 when it cannot
        infra = InfraFlags(scheduler_status=True, graph_status=True, vectorstore_status=[True])
        return InfraStatusResponse(
            tenant_id=tenant_id, org_id="local", infra=infra, message="store open"
        )

    @router.get("/tenants/monitor", tags=["tenants"])
    async def monitor(
        tenant_id: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> MonitorResponse:
        who.check(tenant_id)
        counts = await api.stats(tenant_id)
        dims = api.dimension()
        return MonitorResponse(
            tenant_id=tenant_id,
            normal_collection=CollectionStats(row_count=counts["kb"], dimensions=dims),
            memory_collection=CollectionStats(row_count=counts["mem"], dimensions=dims),
            message="chunk counts over all sub-tenants",
        )

    return router
