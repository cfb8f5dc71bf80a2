"""HydraDB v1 endpoints, under HydraDB's paths, over ``engine.tenants``.

Raw-embedding (bring-your-own-vector) endpoints answer 501 with the error
envelope; the key store's admin endpoints are in ``key_routes``.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Depends

from recall_engine.core.hydra import (
    AddMemoryRequest,
    AddMemoryResponse,
    BooleanRecallRequest,
    QnARequest,
    QnASearchResponse,
    RecallSearchRequest,
    RetrievalResult,
)
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, not_implemented
from recall_engine.server.fetch_routes import fetch_router
from recall_engine.server.ingest_routes import ingestion_router
from recall_engine.server.key_routes import key_router
from recall_engine.server.port import EnginePort
from recall_engine.server.responses import AdminMetrics, TenantMetrics
from recall_engine.server.tenant_routes import tenant_router


def hydra_router(engine: EnginePort, auth: Authenticator) -> APIRouter:
    api = engine.tenants
    router = APIRouter(responses=ERROR_RESPONSES)

    # recall

    @router.post("/recall/full_recall", tags=["recall"])
    async def full_recall(
        body: RecallSearchRequest, who: Principal = Depends(auth)
    ) -> RetrievalResult:
        who.check(body.tenant_id)
        return await api.full_recall(body)

    @router.post("/recall/recall_preferences", tags=["recall"])
    async def recall_preferences(
        body: RecallSearchRequest, who: Principal = Depends(auth)
    ) -> RetrievalResult:
        who.check(body.tenant_id)
        return await api.recall_preferences(body)

    @router.post("/recall/boolean_recall", tags=["recall"])
    async def boolean_recall(
        body: BooleanRecallRequest, who: Principal = Depends(auth)
    ) -> RetrievalResult:
        who.check(body.tenant_id)
        return await api.boolean_recall(
            body.tenant_id,
            body.query,
            operator=body.operator,
            search_mode=body.search_mode,
            sub_tenant_id=body.sub_tenant_id,
            max_results=body.max_results,
        )

    @router.post("/recall/qna", tags=["recall"])
    async def qna(body: QnARequest, who: Principal = Depends(auth)) -> QnASearchResponse:
        who.check(body.tenant_id)
        return await api.qna(body)

    # ingestion

    @router.post("/memories/add_memory", tags=["ingestion"])
    async def add_memory(
        body: AddMemoryRequest, who: Principal = Depends(auth)
    ) -> AddMemoryResponse:
        who.check(body.tenant_id)
        return await api.add_memory(
            body.tenant_id, body.memories, sub_tenant_id=body.sub_tenant_id, upsert=body.upsert
        )

    router.include_router(ingestion_router(api, auth))
    router.include_router(tenant_router(api, auth))
    router.include_router(fetch_router(api, auth))

    # not supported: raw embeddings

    @router.post("/embeddings/insert_raw_embeddings", tags=["embeddings"], status_code=501)
    async def insert_raw_embeddings(_: Principal = Depends(auth)) -> None:
        not_implemented("Inserting raw embeddings")

    @router.post("/embeddings/search_raw_embeddings", tags=["embeddings"], status_code=501)
    async def search_raw_embeddings(_: Principal = Depends(auth)) -> None:
        not_implemented("Searching raw embeddings")

    @router.post("/embeddings/filter_raw_embeddings", tags=["embeddings"], status_code=501)
    async def filter_raw_embeddings(_: Principal = Depends(auth)) -> None:
        not_implemented("Filtering raw embeddings")

    @router.delete("/embeddings/delete_raw_embeddings", tags=["embeddings"], status_code=501)
    async def delete_raw_embeddings(_: Principal = Depends(auth)) -> None:
        not_implemented("Deleting raw embeddings")

    started = time.time()

    @router.get("/metrics", tags=["meta"])
    async def metrics(who: Principal = Depends(auth)) -> AdminMetrics | TenantMetrics:
        """Uptime and, for an admin key, the number of tenants; a tenant key sees
        only its own tenant id (nothing about other tenants, not even how many)."""
        uptime = round(time.time() - started, 3)
        if who.is_admin:
            return AdminMetrics(uptime_s=uptime, tenants=len(api.registry.tenants()))
        return TenantMetrics(uptime_s=uptime, tenant_id=who.tenant_id)

    router.include_router(key_router(api.registry, auth))
    return router
