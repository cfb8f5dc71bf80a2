"""HydraDB v1 endpoints, under HydraDB's paths, over ``engine.tenants``.

Raw-embedding (bring-your-own-vector) endpoints answer 501 with the error
envelope; the key store's admin endpoints are in ``key_routes``.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, ApiError
from recall_engine.server.key_routes import key_router
from recall_engine.server.port import EnginePort
from recall_engine.tenants.models import (
    AddMemoryRequest,
    AddMemoryResponse,
    BooleanRecallRequest,
    KnowledgeSource,
    QnARequest,
    QnASearchResponse,
    RecallSearchRequest,
    RetrievalResult,
    SourceUploadResponse,
    TenantCreateAcceptedResponse,
    TenantCreateRequest,
)


class ListFilters(BaseModel):
    """Exact equalities, ANDed: per group, field name -> the value it must have."""

    model_config = ConfigDict(extra="forbid")

    tenant_metadata: dict[str, Any] | None = None
    document_metadata: dict[str, Any] | None = None
    source_fields: dict[str, Any] | None = Field(
        default=None, description="Fields of the source itself (title, type, url, ...)."
    )


class ListDataRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    kind: Literal["knowledge", "memories"] = "knowledge"
    source_ids: list[str] | None = Field(default=None, max_length=100)
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=50, ge=1, le=100)
    filters: ListFilters | None = None
    include_fields: list[str] | None = None


class FetchContentRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    source_id: str = Field(min_length=1)
    mode: Literal["content", "url", "both"] = "content"
    expiry_seconds: int | None = Field(default=None, ge=60, le=604800)


class DeleteKnowledgeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    ids: list[str] = Field(min_length=1, max_length=1000)


_UPLOAD_BODY = {
    "requestBody": {
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["tenant_id"],
                    "properties": {
                        "tenant_id": {"type": "string", "minLength": 1},
                        "sub_tenant_id": {"type": "string"},
                        "upsert": {"type": "boolean"},
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        "file_metadata": {"type": "string", "description": "JSON array"},
                        "app_sources": {"type": "string", "description": "JSON object or array"},
                    },
                }
            },
        },
        "required": True,
    }
}


def _page(items: list[Any], page: int, size: int) -> tuple[list[Any], dict[str, Any]]:
    total = len(items)
    pages = max(1, math.ceil(total / size))
    chunk = items[(page - 1) * size : page * size]
    meta = {
        "page": page,
        "page_size": size,
        "total": total,
        "total_pages": pages,
        "has_next": page < pages,
        "has_previous": page > 1,
    }
    return chunk, meta


def _matches(source: dict[str, Any], filters: ListFilters | None) -> bool:
    if filters is None:
        return True
    groups = (
        (filters.tenant_metadata, source["tenant_metadata"]),
        (filters.document_metadata, source["document_metadata"]),
        (filters.source_fields, source),
    )
    for wanted, values in groups:
        for key, value in (wanted or {}).items():
            if values.get(key) != value:
                return False
    return True


def _json_field(raw: Any, what: str) -> Any:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise ApiError(400, "INVALID_PARAMETERS", f"{what} must be a JSON string.")
    try:
        return json.loads(raw)
    except ValueError:
        raise ApiError(400, "INVALID_PARAMETERS", f"{what} is not valid JSON.") from None


def _flag(raw: Any, default: bool) -> bool:
    if raw is None or raw == "":
        return default
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ApiError(400, "INVALID_PARAMETERS", f"upsert must be true or false, got {raw!r}.")


def hydra_router(engine: EnginePort, auth: Authenticator) -> APIRouter:
    api = engine.tenants
    router = APIRouter(responses=ERROR_RESPONSES)

    def not_implemented(what: str) -> None:
        raise ApiError(
            501,
            "NOT_IMPLEMENTED",
            f"{what} is not supported by this server: it embeds text itself "
            "(send text to /memories/add_memory or /ingestion/upload_knowledge).",
        )

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

    @router.delete("/memories/delete_memory", tags=["ingestion"])
    async def delete_memory(
        tenant_id: str = Query(min_length=1),
        memory_id: str = Query(min_length=1),
        sub_tenant_id: str | None = None,
        who: Principal = Depends(auth),
    ) -> dict[str, Any]:
        who.check(tenant_id)
        done = await api.delete_sources(
            tenant_id, [memory_id], sub_tenant_id=sub_tenant_id, collection="mem"
        )
        if not done[memory_id]:
            raise ApiError(404, "SOURCE_NOT_FOUND", f"no memory {memory_id!r} in this sub-tenant.")
        return {"success": True, "user_memory_deleted": True}

    @router.post("/ingestion/upload_knowledge", tags=["ingestion"], openapi_extra=_UPLOAD_BODY)
    async def upload_knowledge(
        request: Request, who: Principal = Depends(auth)
    ) -> SourceUploadResponse:
        kind = request.headers.get("content-type", "")
        files: list[tuple[str, bytes, dict[str, Any]]] = []
        if kind.startswith("application/json"):
            try:
                form: dict[str, Any] = await request.json()
            except (ValueError, RecursionError):
                raise ApiError(400, "INVALID_PARAMETERS", "The body is not valid JSON.") from None
            if not isinstance(form, dict):
                raise ApiError(422, "VALIDATION_ERROR", "The body must be a JSON object.")
            sources = form.get("app_sources", form.get("sources"))
        elif kind.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
            data = await request.form()
            form = {k: v for k, v in data.items() if isinstance(v, str)}
            sources = _json_field(form.get("app_sources"), "app_sources")
            metadata = _json_field(form.get("file_metadata"), "file_metadata") or []
            uploads = [u for u in data.getlist("files") if not isinstance(u, str)]
            if not isinstance(metadata, list) or (metadata and len(metadata) != len(uploads)):
                raise ApiError(
                    400,
                    "INVALID_PARAMETERS",
                    "file_metadata must be a JSON array with one object per file.",
                )
            for n, upload in enumerate(uploads):
                meta = metadata[n] if metadata else {}
                if not isinstance(meta, dict):
                    raise ApiError(400, "INVALID_PARAMETERS", "file_metadata items are objects.")
                files.append((upload.filename or f"file-{n}", await upload.read(), meta))
        else:
            raise ApiError(
                415, "UNSUPPORTED_MEDIA_TYPE", "Send multipart/form-data or application/json."
            )
        tenant_id = form.get("tenant_id")
        if not isinstance(tenant_id, str) or not tenant_id:
            raise ApiError(422, "VALIDATION_ERROR", "tenant_id: field required")
        who.check(tenant_id)
        sub = form.get("sub_tenant_id") or None
        if sub is not None and not isinstance(sub, str):
            raise ApiError(422, "VALIDATION_ERROR", "sub_tenant_id: must be a string")
        if isinstance(sources, dict):
            sources = [sources]
        if sources is not None and not isinstance(sources, list):
            raise ApiError(
                422,
                "VALIDATION_ERROR",
                f"app_sources: must be an object or a list of objects, got "
                f"{type(sources).__name__}.",
            )
        try:
            parsed = [KnowledgeSource.model_validate(s) for s in sources or []]
        except ValidationError as exc:
            raise ApiError(
                422, "VALIDATION_ERROR", f"app_sources: {exc.errors()[0]['msg']}"
            ) from None
        if not parsed and not files:
            raise ApiError(400, "INVALID_PARAMETERS", "Send files or app_sources to upload.")
        return await api.upload_knowledge(
            tenant_id,
            parsed,
            files=files,
            sub_tenant_id=sub,
            upsert=_flag(form.get("upsert"), True),
        )

    @router.post("/ingestion/verify_processing", tags=["ingestion"])
    async def verify_processing(
        tenant_id: str = Query(min_length=1),
        file_id: str | None = None,
        file_ids: list[str] | None = Query(default=None),
        sub_tenant_id: str | None = None,
        who: Principal = Depends(auth),
    ) -> dict[str, Any]:
        who.check(tenant_id)
        wanted = list(dict.fromkeys([*(file_ids or []), *([file_id] if file_id else [])]))
        if not wanted:
            raise ApiError(400, "INVALID_PARAMETERS", "Pass file_id or file_ids.")
        known = {s["id"] for s in await api.list_sources(tenant_id, sub_tenant_id=sub_tenant_id)}
        known |= {
            s["id"]
            for s in await api.list_sources(
                tenant_id, sub_tenant_id=sub_tenant_id, collection="mem"
            )
        }
        return {
            "statuses": [
                {
                    "file_id": f,
                    "indexing_status": "completed" if f in known else "errored",
                    "success": f in known,
                    "error_code": None if f in known else "SOURCE_NOT_FOUND",
                    "message": "indexed and searchable" if f in known else "no such source",
                }
                for f in wanted
            ]
        }

    @router.post("/knowledge/delete_knowledge", tags=["ingestion"])
    async def delete_knowledge(
        body: DeleteKnowledgeRequest, who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(body.tenant_id)
        done = await api.delete_sources(body.tenant_id, body.ids, sub_tenant_id=body.sub_tenant_id)
        results = [
            {"id": i, "deleted": ok, "error": None if ok else "not found"} for i, ok in done.items()
        ]
        count = sum(1 for ok in done.values() if ok)
        return {"success": True, "message": f"{count} deleted", "results": results,
                "deleted_count": count}  # fmt: skip

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
        tenant_id: str = Query(min_length=1), who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(tenant_id)
        await api.delete_tenant(tenant_id)
        return {"tenant_id": tenant_id, "status": "deleted", "message": "tenant deleted"}

    @router.get("/tenants/sub_tenant_ids", tags=["tenants"])
    async def sub_tenant_ids(
        tenant_id: str = Query(min_length=1), who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(tenant_id)
        ids = api.sub_tenant_ids(tenant_id)
        return {"sub_tenant_ids": ids, "message": f"{len(ids)} sub-tenants"}

    @router.get("/tenants/infra/status", tags=["tenants"])
    async def infra_status(
        tenant_id: str = Query(min_length=1), who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(tenant_id)
        await api.stats(tenant_id)  # opens the store: 404 / 503 when it cannot
        return {
            "tenant_id": tenant_id,
            "org_id": "local",
            "infra": {"scheduler_status": True, "graph_status": True, "vectorstore_status": [True]},
            "message": "store open",
        }

    @router.get("/tenants/monitor", tags=["tenants"])
    async def monitor(
        tenant_id: str = Query(min_length=1), who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(tenant_id)
        counts = await api.stats(tenant_id)
        dims = api.dimension()
        return {
            "tenant_id": tenant_id,
            "normal_collection": {"row_count": counts["kb"], "dimensions": dims},
            "memory_collection": {"row_count": counts["mem"], "dimensions": dims},
            "message": "chunk counts over all sub-tenants",
        }

    # listing and fetching

    @router.post("/list/data", tags=["fetch"])
    async def list_data(body: ListDataRequest, who: Principal = Depends(auth)) -> dict[str, Any]:
        who.check(body.tenant_id)
        memories = body.kind == "memories"
        sources = await api.list_sources(
            body.tenant_id, sub_tenant_id=body.sub_tenant_id, collection="mem" if memories else "kb"
        )
        if body.source_ids:
            wanted = set(body.source_ids)
            sources = [s for s in sources if s["id"] in wanted]
        sources = [s for s in sources if _matches(s, body.filters)]
        page, meta = _page(sources, body.page, body.page_size)
        if memories:
            return {
                "success": True,
                "user_memories": [
                    {"memory_id": s["id"], "memory_content": s["text"]} for s in page
                ],
                "total": meta["total"],
                "pagination": meta,
            }
        sub = body.sub_tenant_id or "default"
        return {
            "success": True,
            "message": f"{meta['total']} sources",
            "sources": [
                {
                    "id": s["id"],
                    "tenant_id": body.tenant_id,
                    "sub_tenant_id": sub,
                    "title": s["title"],
                    "type": s["type"],
                    "description": s["description"],
                    "url": s["url"],
                    "timestamp": s["timestamp"],
                    "content": {"text": s["text"]},
                    "tenant_metadata": s["tenant_metadata"],
                    "document_metadata": s["document_metadata"],
                    "relations": {"cortex_source_ids": s["relations"]},
                }
                for s in page
            ],
            "total": meta["total"],
            "pagination": meta,
        }

    @router.get("/list/graph_relations_by_id", tags=["fetch"])
    async def graph_relations_by_id(
        source_id: str = Query(min_length=1),
        tenant_id: str = Query(min_length=1),
        is_memory: bool = False,
        sub_tenant_id: str | None = None,
        limit: int = Query(default=100, ge=1, le=1000),
        who: Principal = Depends(auth),
    ) -> dict[str, Any]:
        who.check(tenant_id)
        groups = await api.source_relations(
            tenant_id, source_id, sub_tenant_id=sub_tenant_id, is_memory=is_memory, limit=limit
        )
        relations = [
            {
                "source": g["source"].model_dump(mode="json"),
                "target": g["target"].model_dump(mode="json"),
                "relations": [r.model_dump(mode="json") for r in g["relations"]],
                "chunk_id": g["chunk_id"],
            }
            for g in groups
        ]
        return {"relations": relations, "success": True, "message": f"{len(relations)} relations"}

    @router.post("/fetch/content", tags=["fetch"])
    async def fetch_content(
        body: FetchContentRequest, who: Principal = Depends(auth)
    ) -> dict[str, Any]:
        who.check(body.tenant_id)
        source = await api.source(body.tenant_id, body.source_id, sub_tenant_id=body.sub_tenant_id)
        text = source["text"]
        return {
            "success": True,
            "source_id": body.source_id,
            "content": text if body.mode in ("content", "both") else None,
            "presigned_url": None,
            "content_type": "text/plain; charset=utf-8",
            "size_bytes": len(text.encode("utf-8")),
            "message": "content of the stored chunks"
            + ("; this server has no presigned URLs" if body.mode != "content" else ""),
        }

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
    async def metrics(who: Principal = Depends(auth)) -> dict[str, Any]:
        """Uptime and, for an admin key, the number of tenants; a tenant key sees
        only its own tenant id (nothing about other tenants, not even how many)."""
        uptime = round(time.time() - started, 3)
        if who.is_admin:
            return {"uptime_s": uptime, "tenants": len(api.registry.tenants())}
        return {"uptime_s": uptime, "tenant_id": who.tenant_id}

    router.include_router(key_router(api.registry, auth))
    return router
