"""HydraDB v2 ``databases`` endpoints: create, list and delete databases (v1's
tenants), and a database's collections and stats."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Depends, Query, Request

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.request_fields import known_query
from recall_engine.server.v2_call import Call
from recall_engine.server.v2_errors import not_honoured
from recall_engine.server.v2_models import (
    CollectionsResponse,
    CollectionStats,
    DatabaseCreateRequest,
    DatabaseResponse,
    DatabasesResponse,
    Envelope,
    Meta,
    StatsResponse,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES


def database_router(api: TenantAPI, auth: Authenticator) -> APIRouter:
    """The ``databases`` endpoints over ``api`` with v1's authenticator."""
    router = APIRouter()

    @router.post("/databases")
    async def create_database(
        body: DatabaseCreateRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[DatabaseResponse]:
        call = Call(request, None, database=body.database, tenant_id=body.tenant_id)
        who.check(call.database)
        if body.is_embeddings_tenant:
            not_honoured("An embeddings database (bring-your-own vectors)")
        schema = body.database_metadata_schema or body.tenant_metadata_schema
        await api.create_tenant(call.database, schema)
        data = DatabaseResponse(
            database=call.database,
            tenant_id=call.database,
            status="created",
            message=f"database {call.database!r} is ready",
        )
        return Envelope[DatabaseResponse](data=data, meta=call.meta())

    @router.get("/databases")
    async def list_databases(
        request: Request, who: Principal = Depends(auth)
    ) -> Envelope[DatabasesResponse]:
        names = api.registry.tenants()
        if not who.is_admin:  # a tenant key sees its own database, nothing of others
            names = [n for n in names if n == who.tenant_id]
        data = DatabasesResponse(
            databases=names, tenant_ids=names, message=f"{len(names)} databases"
        )
        meta = Meta(request_id=str(getattr(request.state, "request_id", uuid.uuid4().hex)))
        return Envelope[DatabasesResponse](data=data, meta=meta)

    @router.delete("/databases")
    async def delete_database(
        request: Request,
        database: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> Envelope[DatabaseResponse]:
        call = Call(request, None, database=database)
        who.check(call.database)
        await api.delete_tenant(call.database)
        data = DatabaseResponse(
            database=database, tenant_id=database, status="deleted", message="database deleted"
        )
        return Envelope[DatabaseResponse](data=data, meta=call.meta())

    @router.get("/databases/collections")
    async def collections(
        request: Request,
        database: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> Envelope[CollectionsResponse]:
        call = Call(request, None, database=database)
        who.check(call.database)
        ids = api.sub_tenant_ids(call.database)
        data = CollectionsResponse(
            collections=ids, sub_tenant_ids=ids, message=f"{len(ids)} collections"
        )
        return Envelope[CollectionsResponse](data=data, meta=call.meta())

    @router.get("/databases/stats")
    async def stats(
        request: Request,
        database: str = Query(min_length=1),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> Envelope[StatsResponse]:
        call = Call(request, None, database=database)
        who.check(call.database)
        counts = await api.stats(call.database)
        data = StatsResponse(
            database=database,
            tenant_id=database,
            knowledge_collection=CollectionStats(row_count=counts[KNOWLEDGE]),
            memory_collection=CollectionStats(row_count=counts[MEMORIES]),
            message="chunk counts over all collections",
        )
        return Envelope[StatsResponse](data=data, meta=call.meta())

    return router
