"""HydraDB v1 ingestion endpoints: delete a memory, upload knowledge (multipart or
JSON), verify processing, delete knowledge.

A body field the call does not take is refused with 422 (``server.request_fields``),
an app source's or a file's metadata's fields too (``core.hydra.KnowledgeSource``):
dropped, a misspelled ``sub_tenant_id`` would write or delete in the default
sub-tenant. Every field ``hydra-db-python`` sends is declared; a source that names
a tenant or sub-tenant (the SDK's ``SourceModel`` does) must name the request's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from fastapi import APIRouter, Depends, Query, Request
from pydantic import Field, ValidationError

from recall_engine.core.hydra import DEFAULT_SUB_TENANT, KnowledgeSource, SourceUploadResponse
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES, ApiError
from recall_engine.server.request_fields import (
    KnownFields,
    known_query,
    unknown_fields,
    unknown_fields_message,
)
from recall_engine.server.responses import (
    DeleteKnowledgeResponse,
    DeleteMemoryResponse,
    DeleteResult,
    ProcessingStatus,
    VerifyProcessingResponse,
)
from recall_engine.tenants import TenantAPI


class DeleteKnowledgeRequest(KnownFields):
    what = "POST /knowledge/delete_knowledge"

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    ids: list[str] = Field(min_length=1, max_length=1000)


UPLOAD_FIELDS = ("tenant_id", "sub_tenant_id", "upsert", "files", "file_metadata", "app_sources")
"""The parts of a multipart ``upload_knowledge`` body: every one the SDK sends."""
UPLOAD_JSON_FIELDS = ("tenant_id", "sub_tenant_id", "upsert", "app_sources", "sources")
"""The keys of a JSON ``upload_knowledge`` body (``sources``: ``app_sources``)."""


def _check_fields(names: Iterable[str], accepted: Sequence[str]) -> None:
    unknown = unknown_fields(dict.fromkeys(names), accepted)
    if unknown:
        message = unknown_fields_message(unknown, accepted, "POST /ingestion/upload_knowledge")
        raise ApiError(422, "VALIDATION_ERROR", message)


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


def parse_sources(
    items: Sequence[object], what: str, tenant_id: str, sub_tenant_id: str | None
) -> list[KnowledgeSource]:
    """``items`` (``what``: the field they came in) as knowledge sources, each in
    the request's scope.

    Raises:
        ApiError: 422 ``VALIDATION_ERROR`` for an item that is not a source (an
            unknown field among them), or one that names another tenant or
            sub-tenant than ``tenant_id`` / ``sub_tenant_id`` (None: the default).
    """
    sources = []
    for n, item in enumerate(items):
        try:
            source = KnowledgeSource.model_validate(item)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = "".join(f".{p}" for p in error.get("loc", ()))
            raise ApiError(422, "VALIDATION_ERROR", f"{what}[{n}]{where}: {error['msg']}") from None
        for field, given, asked in (
            ("tenant_id", source.tenant_id, tenant_id),
            ("sub_tenant_id", source.sub_tenant_id, sub_tenant_id or DEFAULT_SUB_TENANT),
        ):
            if given is not None and given != asked:
                raise ApiError(
                    422,
                    "VALIDATION_ERROR",
                    f"{what}[{n}].{field} is {given!r} but the request writes to {asked!r}; "
                    f"send it in a request for {given!r}, or leave {field} out. "
                    "Nothing was stored.",
                )
        sources.append(source)
    return sources


def _json_field(raw: object, what: str) -> object:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise ApiError(400, "INVALID_PARAMETERS", f"{what} must be a JSON string.")
    try:
        return json.loads(raw)
    except ValueError:
        raise ApiError(400, "INVALID_PARAMETERS", f"{what} is not valid JSON.") from None


def _flag(raw: object, default: bool) -> bool:
    if raw is None or raw == "":
        return default
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ApiError(400, "INVALID_PARAMETERS", f"upsert must be true or false, got {raw!r}.")


def ingestion_router(api: TenantAPI, auth: Authenticator) -> APIRouter:
    """Ingestion endpoints over ``api``."""
    router = APIRouter(responses=ERROR_RESPONSES)

    @router.delete("/memories/delete_memory", tags=["ingestion"])
    async def delete_memory(
        tenant_id: str = Query(min_length=1),
        memory_id: str = Query(min_length=1),
        sub_tenant_id: str | None = None,
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> DeleteMemoryResponse:
        who.check(tenant_id)
        done = await api.delete_sources(
            tenant_id, [memory_id], sub_tenant_id=sub_tenant_id, collection="mem"
        )
        if not done[memory_id]:
            raise ApiError(404, "SOURCE_NOT_FOUND", f"no memory {memory_id!r} in this sub-tenant.")
        return DeleteMemoryResponse(success=True, user_memory_deleted=True)

    @router.post("/ingestion/upload_knowledge", tags=["ingestion"], openapi_extra=_UPLOAD_BODY)
    async def upload_knowledge(
        request: Request, who: Principal = Depends(auth)
    ) -> SourceUploadResponse:
        kind = request.headers.get("content-type", "")
        files: list[tuple[str, bytes, dict[str, object]]] = []
        if kind.startswith("application/json"):
            try:
                form: dict[str, object] = await request.json()
            except (ValueError, RecursionError):
                raise ApiError(400, "INVALID_PARAMETERS", "The body is not valid JSON.") from None
            if not isinstance(form, dict):
                raise ApiError(422, "VALIDATION_ERROR", "The body must be a JSON object.")
            _check_fields(form, UPLOAD_JSON_FIELDS)
            sources = form.get("app_sources", form.get("sources"))
        elif kind.startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
            data = await request.form()
            _check_fields(data.keys(), UPLOAD_FIELDS)
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
            why = "field required" if tenant_id in (None, "") else "must be a string"
            raise ApiError(422, "VALIDATION_ERROR", f"tenant_id: {why}")
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
        parsed = parse_sources(sources or [], "app_sources", tenant_id, sub)
        parse_sources([meta for _, _, meta in files], "file_metadata", tenant_id, sub)
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
        _: None = Depends(known_query),
    ) -> VerifyProcessingResponse:
        who.check(tenant_id)
        wanted = list(dict.fromkeys([*(file_ids or []), *([file_id] if file_id else [])]))
        if not wanted:
            raise ApiError(400, "INVALID_PARAMETERS", "Pass file_id or file_ids.")
        known = {
            s["id"] for s in await api.find_sources(tenant_id, wanted, sub_tenant_id=sub_tenant_id)
        }
        known |= {
            s["id"]
            for s in await api.find_sources(
                tenant_id, wanted, sub_tenant_id=sub_tenant_id, collection="mem"
            )
        }
        return VerifyProcessingResponse(
            statuses=[
                ProcessingStatus(
                    file_id=f,
                    indexing_status="completed" if f in known else "errored",
                    success=f in known,
                    error_code=None if f in known else "SOURCE_NOT_FOUND",
                    message="indexed and searchable" if f in known else "no such source",
                )
                for f in wanted
            ]
        )

    @router.post("/knowledge/delete_knowledge", tags=["ingestion"])
    async def delete_knowledge(
        body: DeleteKnowledgeRequest, who: Principal = Depends(auth)
    ) -> DeleteKnowledgeResponse:
        who.check(body.tenant_id)
        done = await api.delete_sources(body.tenant_id, body.ids, sub_tenant_id=body.sub_tenant_id)
        results = [
            DeleteResult(id=i, deleted=ok, error=None if ok else "not found")
            for i, ok in done.items()
        ]
        count = sum(1 for ok in done.values() if ok)
        return DeleteKnowledgeResponse(
            success=True, message=f"{count} deleted", results=results, deleted_count=count
        )

    return router
