"""HydraDB v2 endpoints (``API-Version: 2``), beside v1, over the same engine.

``database`` / ``collection`` are v1's ``tenant_id`` / ``sub_tenant_id``: one id,
one store, so a tenant written through v1 is read through v2 and back
(``server.v2_call``). ``query`` is one ``recall()`` call (``server.v2_query``);
the ``context`` and ``databases`` calls are the tenant API's own
(``server.v2_context_routes``, ``server.v2_database_routes``). Same
authentication, rate limits and body limit as v1. Connectors, webhooks, document
ACLs and code search answer 501 in v2's error shape (``server.v2_errors``).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, Request

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ApiError
from recall_engine.server.port import EnginePort
from recall_engine.server.v2_call import Call, reject_acl
from recall_engine.server.v2_context_routes import context_router
from recall_engine.server.v2_database_routes import database_router
from recall_engine.server.v2_errors import V2_ERROR_RESPONSES, not_honoured
from recall_engine.server.v2_models import (
    Envelope,
    FeedbackRequest,
    FeedbackResponse,
    QueryRequest,
    V2RetrievalResult,
)
from recall_engine.server.v2_query import run_query
from recall_engine.tenants.scopes import dataset_scope

_ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


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
        reject_acl(body.acl)
        if body.code_search:
            not_honoured("Code search (code_search)")
        if body.graph_vector_prune:
            not_honoured("graph_vector_prune")
        if body.temporal_intent:
            not_honoured("temporal_intent", "Send temporal_now to read as of a time.")
        scope = await dataset_scope(api, call.database, _collections(body, call), body.type)
        data = await run_query(engine, body, scope)
        return Envelope[V2RetrievalResult | str](data=data, meta=call.meta())

    router.include_router(context_router(api, auth))
    router.include_router(database_router(api, auth))

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


def _refuse(what: str, auth: Authenticator) -> Callable[..., Awaitable[None]]:
    async def refuse(_: Principal = Depends(auth)) -> None:
        not_honoured(what)

    return refuse
