"""HydraDB v2 endpoints (``API-Version: 2``), beside v1, over the same engine.

``database`` / ``collection`` are v1's ``tenant_id`` / ``sub_tenant_id``: one id,
one store, so a tenant written through v1 is read through v2 and back. ``query``
is one ``recall()`` call (``server.v2_query``); ingestion, listing and deletion
are the tenant API's own calls. Same authentication, rate limits and body limit
as v1. Connectors, webhooks, document ACLs and code search answer 501 in v2's
error shape (``server.v2_errors``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Query, Request

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ApiError
from recall_engine.server.port import EnginePort
from recall_engine.server.request_fields import known_query
from recall_engine.server.v2_errors import V2_ERROR_RESPONSES, not_honoured
from recall_engine.server.v2_ingest import check_fields, ingest
from recall_engine.server.v2_listing import list_context
from recall_engine.server.v2_models import (
    CollectionsResponse,
    CollectionStats,
    DatabaseCreateRequest,
    DatabaseResponse,
    DatabasesResponse,
    DeleteItem,
    DeleteRequest,
    DeleteResponse,
    Deprecation,
    Envelope,
    FeedbackRequest,
    FeedbackResponse,
    IngestResponse,
    InspectResponse,
    ListRequest,
    ListResponse,
    Meta,
    ProcessingStatus,
    QueryRequest,
    Scoped,
    StatsResponse,
    StatusResponse,
    V2RetrievalResult,
)
from recall_engine.server.v2_query import run_query
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.scopes import KINDS, dataset_scope

_ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def _one(v2: str | None, v1: str | None, names: tuple[str, str]) -> str | None:
    if v2 and v1 and v2 != v1:
        raise ApiError(
            400,
            "VALIDATION_ERROR",
            f"{names[0]} {v2!r} and its old name {names[1]} {v1!r} disagree; send {names[0]} only.",
        )
    return v2 or v1 or None


class Call:
    """One v2 request's scope and timing, for its ``meta``."""

    def __init__(self, request: Request, scoped: Scoped | None = None, **names: str | None):
        self.started = time.perf_counter()
        self.request_id = str(getattr(request.state, "request_id", "") or uuid.uuid4().hex)
        fields = scoped.model_dump() if scoped is not None else {}
        fields.update(names)
        self.deprecations = [
            Deprecation(
                deprecated_field=old,
                preferred_field=new,
                message=f"{old} is deprecated; send {new}.",
            )
            for old, new in (("tenant_id", "database"), ("sub_tenant_id", "collection"))
            if fields.get(old)
        ]
        database = _one(fields.get("database"), fields.get("tenant_id"), ("database", "tenant_id"))
        if not database:
            raise ApiError(400, "VALIDATION_ERROR", "database: field required.")
        self.database: str = database
        self.collection = _one(
            fields.get("collection"), fields.get("sub_tenant_id"), ("collection", "sub_tenant_id")
        )

    def meta(self) -> Meta:
        return Meta(
            request_id=self.request_id,
            latency_ms=round((time.perf_counter() - self.started) * 1000, 3),
            database=self.database,
            collection=self.collection,
            deprecation=self.deprecations or None,
        )


def _collections(body: QueryRequest, call: Call) -> Sequence[str | None]:
    """The collections a query reads (``[None]``: the default one).

    Raises:
        ApiError: 400 for two selectors in one request (the SDK's docs forbid it;
            one would be ignored) or more than 100 collections, 501 for weights.
    """
    sent = [n for n in ("collections", "sub_tenant_ids") if getattr(body, n) is not None]
    if call.collection:  # collection or sub_tenant_id, reconciled by Call
        sent.insert(0, "collection" if body.collection else "sub_tenant_id")
    if len(sent) > 1:
        raise ApiError(
            400,
            "VALIDATION_ERROR",
            f"{' and '.join(sent)} both name the collections to read; send collections only.",
        )
    selector = body.collections if body.collections is not None else body.sub_tenant_ids
    if isinstance(selector, dict) and len(set(selector.values())) > 1:
        not_honoured("Weighted collections", "Send a list of collections.")
    subs = list(selector) if selector else [call.collection]
    if len(subs) > 100:
        raise ApiError(400, "VALIDATION_ERROR", "collections: at most 100.")
    return subs


def _reject_acl(acl: list[str] | None) -> None:
    if acl and acl != ["*"]:
        not_honoured("Document ACLs (acl)", "Give each principal its own database and key.")


def v2_router(engine: EnginePort, auth: Authenticator) -> APIRouter:
    """The v2 endpoints over ``engine`` with v1's authenticator."""
    api = engine.tenants
    router = APIRouter(responses=V2_ERROR_RESPONSES, tags=["hydradb v2"])

    @router.post("/query")
    async def query(
        body: QueryRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[V2RetrievalResult | str]:
        call = Call(request, body)
        who.check(call.database)
        _reject_acl(body.acl)
        if body.code_search:
            not_honoured("Code search (code_search)")
        if body.graph_vector_prune:
            not_honoured("graph_vector_prune")
        if body.temporal_intent:
            not_honoured("temporal_intent", "Send temporal_now to read as of a time.")
        scope = await dataset_scope(api, call.database, _collections(body, call), body.type)
        data = await run_query(engine, body, scope)
        return Envelope[V2RetrievalResult | str](data=data, meta=call.meta())

    @router.post("/context/ingest")
    async def context_ingest(
        request: Request, who: Principal = Depends(auth)
    ) -> Envelope[IngestResponse]:
        form, files = await _form(request)
        call = Call(request, None, **_scope_of(form))
        who.check(call.database)
        data = await ingest(api, call.database, call.collection, form, files)
        return Envelope[IngestResponse](data=data, meta=call.meta())

    @router.post("/context/list")
    async def context_list(
        body: ListRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[ListResponse]:
        call = Call(request, body)
        who.check(call.database)
        _reject_acl(body.acl)
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
        call = Call(request, None, **_names(database, tenant_id, collection, sub_tenant_id))
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
        call = Call(request, None, **_names(database, tenant_id, collection, sub_tenant_id))
        who.check(call.database)
        _reject_acl(acl)
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

    @router.post("/feedback")
    async def feedback(
        body: FeedbackRequest, request: Request, who: Principal = Depends(auth)
    ) -> Envelope[FeedbackResponse]:
        call = Call(request, body)
        who.check(call.database)
        api.sub_tenant_ids(call.database)  # 404 for a database that does not exist
        data = FeedbackResponse(
            feedback_id=uuid.uuid4().hex,
            request_id=body.request_id,
            recorded=False,
            created_at=datetime.now(UTC).isoformat(),
            message="Accepted, not recorded: this server does not tune ranking from query "
            "feedback (rate session answers with add_feedback instead).",
        )
        return Envelope[FeedbackResponse](data=data, meta=call.meta())

    for path, what, methods in (
        ("/connectors", "Connectors", _ALL_METHODS),
        ("/connectors/{rest:path}", "Connectors", _ALL_METHODS),
        ("/connector-catalog", "The connector catalog", _ALL_METHODS),
        ("/webhooks", "Webhooks", _ALL_METHODS),
        ("/webhooks/{rest:path}", "Webhooks", _ALL_METHODS),
        # v2 calls beyond the ones served (v1's /list/graph_relations_by_id and
        # /fetch/content answer the first two)
        ("/context/relations", "context.relations", ["GET"]),
        ("/context/subgraph", "context.subgraph", ["GET"]),
        ("/context/chunks", "context.chunks", ["GET"]),
        ("/context/{id}/metadata", "Editing a source's metadata", ["PATCH"]),
        ("/databases/status", "databases.status", ["GET"]),
        ("/databases/{database}", "Renaming a database", ["PATCH"]),
        ("/databases/{database}/instructions", "Database instructions", ["GET", "PATCH"]),
        ("/databases/{database}/metadata-schema", "Editing a metadata schema", ["GET", "PATCH"]),
    ):
        router.add_api_route(
            path,
            _refuse(what, auth),
            methods=methods,
            status_code=501,
            include_in_schema=False,
        )
    return router


_SCOPE_FIELDS = ("database", "tenant_id", "collection", "sub_tenant_id")


def _names(
    database: str | None, tenant_id: str | None, collection: str | None, sub: str | None
) -> dict[str, str | None]:
    return {
        "database": database,
        "tenant_id": tenant_id,
        "collection": collection,
        "sub_tenant_id": sub,
    }


def _scope_of(form: dict[str, Any]) -> dict[str, str | None]:
    """The database / collection fields (and their old names) of an ingest body.

    Raises:
        ApiError: 400 for one that is not a string (a JSON body may send any value).
    """
    names = {k: form.get(k) for k in _SCOPE_FIELDS}
    for name, value in names.items():
        if value is not None and not isinstance(value, str):
            raise ApiError(
                400, "VALIDATION_ERROR", f"{name} must be a string, got {type(value).__name__}."
            )
    return names


def _refuse(what: str, auth: Authenticator) -> Callable[..., Awaitable[None]]:
    async def refuse(_: Principal = Depends(auth)) -> None:
        not_honoured(what)

    return refuse


async def _form(request: Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """A multipart (the SDK's) or JSON ingest body: its text fields and its files.

    Raises:
        ApiError: 400 for a body that is not a JSON object or names a field ingest
            does not take (``v2_ingest.check_fields``), 415 for another content type.
    """
    kind = request.headers.get("content-type", "")
    if kind.startswith("application/json"):
        try:
            body = await request.json()
        except (ValueError, RecursionError):
            raise ApiError(400, "VALIDATION_ERROR", "The body is not valid JSON.") from None
        if not isinstance(body, dict):
            raise ApiError(400, "VALIDATION_ERROR", "The body must be a JSON object.")
        check_fields(body)
        return body, []
    if not kind.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "Send multipart/form-data or JSON.")
    data = await request.form()
    check_fields(data.keys())
    form = {k: v for k, v in data.items() if isinstance(v, str)}
    files = [
        (u.filename or f"document-{n}", await u.read())
        for n, u in enumerate(v for v in data.getlist("documents") if not isinstance(v, str))
    ]
    return form, files
