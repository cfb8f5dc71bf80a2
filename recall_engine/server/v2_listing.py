"""HydraDB v2 ``context/list``: a collection's knowledge sources or memories, one
page at a time, optionally narrowed by id and by exact metadata values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.server.v2_models import (
    ListRequest,
    ListResponse,
    MemoryListItem,
    Pagination,
    SourceItem,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.ids import MEMORIES
from recall_engine.tenants.scopes import KINDS


def _holds(stored: Mapping[str, object], wanted: Mapping[str, object] | None) -> bool:
    return all(stored.get(k) == v for k, v in (wanted or {}).items())


async def list_context(
    api: TenantAPI, database: str, collection: str | None, body: ListRequest
) -> ListResponse:
    """One page of ``body.type``'s items, oldest first.

    Raises:
        TenantNotFoundError: no such database.
    """
    sub = collection or DEFAULT_SUB_TENANT
    rows: list[tuple[str, dict[str, Any]]] = []
    for wanted in KINDS[body.type]:
        for found in await api.list_sources(database, sub_tenant_id=collection, collection=wanted):
            rows.append((wanted, found))
    wanted_ids = set(body.ids or ())
    filters = body.filters
    rows = [
        (kind, row)
        for kind, row in rows
        if (not wanted_ids or row["id"] in wanted_ids)
        and (filters is None or _holds(row["tenant_metadata"], filters.metadata))
        and (filters is None or _holds(row["document_metadata"], filters.additional_metadata))
        and (filters is None or _holds(row, filters.source_fields))
    ]
    total = len(rows)
    start = (body.page - 1) * body.page_size
    page = rows[start : start + body.page_size]
    sources: list[SourceItem] = []
    memories: list[MemoryListItem] = []
    for kind, row in page:
        common: dict[str, Any] = {
            "database": database,
            "tenant_id": database,
            "collection": sub,
            "sub_tenant_id": sub,
            "title": row.get("title"),
            "type": row.get("type"),
            "description": row.get("description"),
            "timestamp": row.get("timestamp"),
            "metadata": row.get("tenant_metadata") or {},
            "additional_metadata": row.get("document_metadata") or {},
        }
        if kind == MEMORIES:
            memories.append(MemoryListItem(memory_id=row["id"], **common))
        else:
            sources.append(SourceItem(id=row["id"], **common))
    pages = max(1, math.ceil(total / body.page_size))
    return ListResponse(
        sources=sources if body.type != "memory" else None,
        user_memories=memories if body.type != "knowledge" else None,
        pagination=Pagination(
            page=body.page,
            page_size=body.page_size,
            total=total,
            total_pages=pages,
            has_next=body.page < pages,
            has_previous=body.page > 1,
        ),
        total=total,
        message=f"{total} items",
    )
