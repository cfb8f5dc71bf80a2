"""HydraDB v2 ``context/ingest``: memories, app knowledge and documents, through
the tenant API's own ``add_memory`` / ``upload_knowledge``.

v2 spells an item's fields its own way; they are read as v1's: ``id`` is the
source id, ``metadata`` the database attributes (v1's ``tenant_metadata``),
``additional_metadata`` the per-source metadata. An item's ``acl`` and a
``graph_payload`` answer 501 (not supported here). A body field other than
``INGEST_FIELDS`` is refused (``check_fields``), and so is an item field v1's
``MemoryItem`` / ``KnowledgeSource`` does not declare.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

from recall_engine.core.hydra import MemoryItem
from recall_engine.server.errors import ApiError
from recall_engine.server.ingest_routes import parse_sources
from recall_engine.server.request_fields import unknown_fields, unknown_fields_message
from recall_engine.server.v2_errors import not_honoured
from recall_engine.server.v2_models import IngestResponse, IngestResultItem
from recall_engine.tenants import TenantAPI

MAX_ITEMS = 1000
INGEST_FIELDS = (
    "database",
    "tenant_id",
    "collection",
    "sub_tenant_id",
    "type",
    "memories",
    "app_knowledge",
    "documents",
    "document_metadata",
    "graph_payload",
    "upsert",
)
"""The fields of a ``context/ingest`` body (form parts or JSON keys): every one
``hydradb-sdk`` 2.1.7 sends."""


def check_fields(names: Iterable[str]) -> None:
    """That every field of an ingest body is one of ``INGEST_FIELDS``.

    Raises:
        ApiError: 400 naming the unknown fields and the known ones.
    """
    unknown = unknown_fields(dict.fromkeys(names), INGEST_FIELDS)
    if unknown:
        message = unknown_fields_message(unknown, INGEST_FIELDS, "POST /context/ingest")
        raise ApiError(400, "VALIDATION_ERROR", message)


async def read_form(request: Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """A multipart (the SDK's) or JSON ingest body: its text fields and its files.

    Raises:
        ApiError: 400 for a body that is not a JSON object or names a field ingest
            does not take (``check_fields``), 415 for another content type.
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


ModelT = TypeVar("ModelT", bound=BaseModel)


def _json_list(raw: object, what: str) -> list[dict[str, object]]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ApiError(400, "VALIDATION_ERROR", f"{what} is not valid JSON.") from None
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(i, dict) for i in raw):
        raise ApiError(400, "VALIDATION_ERROR", f"{what} must be a JSON array of objects.")
    if len(raw) > MAX_ITEMS:
        raise ApiError(400, "VALIDATION_ERROR", f"{what} holds more than {MAX_ITEMS} items.")
    return [item for item in raw if isinstance(item, dict)]  # every one, checked above


def _flag(raw: object) -> bool:
    if raw is None or raw == "":
        return True
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise ApiError(400, "VALIDATION_ERROR", f"upsert must be true or false, got {raw!r}.")


def _v1_fields(
    item: Mapping[str, object], what: str, n: int, *, keep_id: bool = True
) -> dict[str, object]:
    """A v2 item as v1's fields; its ``id`` is also its ``source_id`` (and only
    that without ``keep_id``: a memory has no ``id`` field)."""
    fields = dict(item)
    if fields.pop("acl", None) is not None:
        not_honoured(f"{what}[{n}].acl (document ACLs)", "Give each principal its own database.")
    if "id" in fields and not fields.get("source_id"):
        fields["source_id"] = fields["id"]
    if not keep_id:
        fields.pop("id", None)
    if "metadata" in fields and fields.get("tenant_metadata") is None:
        fields["tenant_metadata"] = fields.pop("metadata")
    return fields


def _parse(model: type[ModelT], fields: Mapping[str, object], what: str, n: int) -> ModelT:
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "".join(f".{p}" for p in error.get("loc", ()))
        raise ApiError(
            400, "VALIDATION_ERROR", f"{what}[{n}]{where}: {error.get('msg', 'invalid')}"
        ) from None


async def ingest(
    api: TenantAPI,
    database: str,
    collection: str | None,
    form: Mapping[str, object],
    files: list[tuple[str, bytes]],
) -> IngestResponse:
    """Store the form's memories or knowledge in ``database`` / ``collection``.

    Raises:
        ApiError: 400 for malformed fields or nothing to ingest, 501 for an ACL or
            a graph payload.
        TenantNotFoundError: no such database.
    """
    if form.get("graph_payload"):
        not_honoured("graph_payload (a prebuilt graph)", "Send text; the graph is built from it.")
    kind = str(form.get("type") or ("memory" if form.get("memories") else "knowledge"))
    if kind not in ("knowledge", "memory"):
        raise ApiError(400, "VALIDATION_ERROR", f"type must be knowledge or memory, got {kind!r}.")
    upsert = _flag(form.get("upsert"))
    if kind == "memory":
        raw = _json_list(form.get("memories"), "memories")
        if not raw:
            raise ApiError(400, "VALIDATION_ERROR", "type=memory needs memories (a JSON array).")
        items = [
            _parse(MemoryItem, _v1_fields(m, "memories", n, keep_id=False), "memories", n)
            for n, m in enumerate(raw)
        ]
        done = await api.add_memory(database, items, sub_tenant_id=collection, upsert=upsert)
        results = [
            IngestResultItem(id=r.source_id, title=r.title, status=r.status, error_code=r.error)
            for r in done.results
        ]
    else:
        apps = _json_list(form.get("app_knowledge"), "app_knowledge")
        fields = [_v1_fields(s, "app_knowledge", n) for n, s in enumerate(apps)]
        sources = parse_sources(fields, "app_knowledge", database, collection)
        metadata = _json_list(form.get("document_metadata"), "document_metadata")
        if metadata and len(metadata) != len(files):
            raise ApiError(
                400,
                "VALIDATION_ERROR",
                f"document_metadata holds {len(metadata)} items for {len(files)} documents; "
                "send one per document, in order.",
            )
        uploads = []
        for n, (name, body) in enumerate(files):
            meta = _v1_fields(metadata[n], "document_metadata", n) if metadata else {}
            meta.setdefault("file_id", meta.get("source_id"))
            uploads.append((name, body, {k: v for k, v in meta.items() if v is not None}))
        parse_sources([meta for _, _, meta in uploads], "document_metadata", database, collection)
        if not sources and not uploads:
            raise ApiError(400, "VALIDATION_ERROR", "Send documents or app_knowledge to ingest.")
        uploaded = await api.upload_knowledge(
            database, sources, files=uploads, sub_tenant_id=collection, upsert=upsert
        )
        results = [
            IngestResultItem(
                id=r.source_id, filename=r.filename, status=r.status, error_code=r.error
            )
            for r in uploaded.results
        ]
    failed = sum(1 for r in results if r.status == "failed")
    return IngestResponse(
        success_count=len(results) - failed,
        failed_count=failed,
        results=results,
        message=f"{len(results) - failed} ingested, searchable now",
    )
