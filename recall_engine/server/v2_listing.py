"""HydraDB v2 ``context/list``: a collection's knowledge sources or memories, one
page at a time, optionally narrowed by id and by exact metadata values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.server.v2_models import (
    ListFilter,
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


def _passes(row: Mapping[str, Any], *, filters: ListFilter) -> bool:
    """The source holds every exact value ``filters`` asks of it."""
    return (
        _holds(row["tenant_metadata"], filters.metadata)
        and _holds(row["document_metadata"], filters.additional_metadata)
        and _holds(row, filters.source_fields)
    )


async def list_context(
    api: TenantAPI, database: str, collection: str | None, body: ListRequest
) -> ListResponse:
    """One page of ``body.type``'s items, oldest first.

    Raises:
        TenantNotFoundError: no such database.
    """
    sub = collection or DEFAULT_SUB_TENANT
    where = None if body.filters is None else partial(_passes, filters=body.filters)
    listings = [
        (
            wanted,
            await api.listing(
                database,
                sub_tenant_id=collection,
                collection=wanted,
                source_ids=body.ids or None,
                where=where,
            ),
        )
        for wanted in KINDS[body.type]
    ]
    total = sum(listing.total for _, listing in listings)
    start = (body.page - 1) * body.page_size
    page: list[tuple[str, dict[str, Any]]] = []
    for kind_of_page, listing in listings:  # the kinds one after the other, as one list
        stop = start + body.page_size - len(page)
        page += [(kind_of_page, row) for row in await listing.page(start, stop)]
        start = max(0, start - listing.total)
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
