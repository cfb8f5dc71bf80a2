"""HydraDB v2 ``context`` endpoints: ingest, list, status, inspect and delete a
database's sources, through the tenant API's own calls."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ApiError
from recall_engine.server.request_fields import known_query
from recall_engine.server.v2_call import Call, reject_acl, scope_names, scope_of
from recall_engine.server.v2_errors import not_honoured
from recall_engine.server.v2_ingest import ingest, read_form
from recall_engine.server.v2_listing import list_context
from recall_engine.server.v2_models import (
    DeleteItem,
    DeleteRequest,
    DeleteResponse,
    Envelope,
    IngestResponse,
    InspectResponse,
    ListRequest,
    ListResponse,
    ProcessingStatus,
    StatusResponse,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.scopes import KINDS


def context_router(api: TenantAPI, auth: Authenticator) -> APIRouter:
    """The ``context`` endpoints over ``api`` with v1's authenticator."""
    router = APIRouter()

    @router.post("/context/ingest")
    async def context_ingest(
        request: Request, who: Principal = Depends(auth)
    ) -> Envelope[IngestResponse]:
        form, files = await read_form(request)
        call = Call(request, None, **scope_of(form))
        who.check(call.database)
        data = await ingest(api, call.database, call.collection, form, files)
        return Envelope[IngestResponse](data=data, meta=call.meta())

    @router.post("/context/list")
    async def context_list(
        body: ListRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[ListResponse]:
        call = Call(request, body)
        who.check(call.database)
        reject_acl(body.acl)
        data = await list_context(api, call.database, call.collection, body)
        return Envelope[ListResponse](data=data, meta=call.meta())

    @router.get("/context/status")
    async def context_status(
        request: Request,
        database: str | None = None,
        tenant_id: str | None = None,
        collection: str | None = None,
        sub_tenant_id: str | None = None,
        id: str | None = None,
        ids: list[str] | None = Query(default=None, max_length=1000),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> Envelope[StatusResponse]:
        call = Call(request, None, **scope_names(database, tenant_id, collection, sub_tenant_id))
        who.check(call.database)
        wanted = [i for raw in [*(ids or []), *([id] if id else [])] for i in raw.split(",") if i]
        wanted = list(dict.fromkeys(wanted))
        if not wanted:
            raise ApiError(400, "VALIDATION_ERROR", "Pass id or ids.")
        known: set[str] = set()
        for kind in (KNOWLEDGE, MEMORIES):
            found = await api.find_sources(
                call.database, wanted, sub_tenant_id=call.collection, collection=kind
            )
            known |= {s["id"] for s in found}
        statuses = [
            ProcessingStatus(
                id=i,
                indexing_status="completed" if i in known else "errored",
                error_code=None if i in known else "SOURCE_NOT_FOUND",
                error_message=None if i in known else "no such source in this collection",
                message="indexed and searchable" if i in known else "not found",
            )
            for i in wanted
        ]
        return Envelope[StatusResponse](data=StatusResponse(statuses=statuses), meta=call.meta())

    @router.get("/context/inspect")
    async def context_inspect(
        request: Request,
        id: str = Query(min_length=1),
        database: str | None = None,
        tenant_id: str | None = None,
        collection: str | None = None,
        sub_tenant_id: str | None = None,
        mode: str | None = None,
        expiry_seconds: int | None = None,
        acl: list[str] | None = Query(default=None),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> Envelope[InspectResponse]:
        call = Call(request, None, **scope_names(database, tenant_id, collection, sub_tenant_id))
        who.check(call.database)
        reject_acl(acl)
        if mode not in (None, "", "content"):
            not_honoured(f"Inspect mode {mode!r} (presigned URLs)", "Use mode=content.")
        found = await api.source(call.database, id, sub_tenant_id=call.collection)
        text = str(found["text"])
        data = InspectResponse(
            id=id, content=text, size_bytes=len(text.encode("utf-8")), message="source content"
        )
        return Envelope[InspectResponse](data=data, meta=call.meta())

    @router.delete("/context")
    async def context_delete(
        body: DeleteRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[DeleteResponse]:
        call = Call(request, body)
        who.check(call.database)
        kinds = KINDS[body.type or "all"]
        done = dict.fromkeys(body.ids, False)
        for kind in kinds:
            left = [i for i, ok in done.items() if not ok]
            if left:
                removed = await api.delete_sources(
                    call.database, left, sub_tenant_id=call.collection, collection=kind
                )
                done.update({i: True for i, ok in removed.items() if ok})
        count = sum(done.values())
        strict = request.headers.get("x-hydradb-delete-status", "").lower() == "strict"
        if strict and count < len(done):
            missing = ", ".join(repr(i) for i, ok in done.items() if not ok)
            raise ApiError(404, "SOURCE_NOT_FOUND", f"Not found, nothing deleted for: {missing}.")
        data = DeleteResponse(
            deleted_count=count,
            results=[DeleteItem(id=i, deleted=ok) for i, ok in done.items()],
            message=f"{count} deleted",
        )
        return Envelope[DeleteResponse](data=data, meta=call.meta())

    return router
