"""HydraDB v2 ``context/list``: a collection's knowledge sources or memories, one
page at a time, optionally narrowed by id and by exact metadata values.

``filters`` match exact values (``tenants.source_filter``): ``metadata`` the
database attributes (a declared one with a value of its kind),
``additional_metadata`` per-source fields, and ``source_fields`` the source's own
fields; an operator object, an unknown source field or a value of the wrong kind is
a 400, never a filter that matches nothing.
"""

from __future__ import annotations

import math
from typing import Any

from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.server.errors import ApiError
from recall_engine.server.v2_models import (
    ListFilter,
    ListRequest,
    ListResponse,
    MemoryListItem,
    Pagination,
    SourceItem,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.errors import InvalidFilterError
from recall_engine.tenants.ids import MEMORIES
from recall_engine.tenants.scopes import KINDS
from recall_engine.tenants.source_filter import SourceFilter
from recall_engine.tenants.source_rows import SourceListing


def source_filter(filters: ListFilter) -> SourceFilter:
    """v2's listing ``filters`` as the tenant API's, named as v2 names its groups."""
    return SourceFilter(
        attributes=filters.metadata or {},
        additional=filters.additional_metadata or {},
        source_fields=filters.source_fields or {},
        names=("metadata", "additional_metadata", "source_fields"),
    )


async def list_context(
    api: TenantAPI, database: str, collection: str | None, body: ListRequest
) -> ListResponse:
    """One page of ``body.type``'s items, oldest first.

    Raises:
        TenantNotFoundError: no such database.
        ApiError: 400 for ``filters`` that ``SourceFilter.check`` refuses.
    """
    sub = collection or DEFAULT_SUB_TENANT
    where = source_filter(body.filters) if body.filters is not None else None
    listings: list[tuple[str, SourceListing]] = []
    for wanted in KINDS[body.type]:
        try:
            listing = await api.listing(
                database,
                sub_tenant_id=collection,
                collection=wanted,
                source_ids=body.ids,
                where=where,
            )
        except InvalidFilterError as exc:
            raise ApiError(400, "VALIDATION_ERROR", str(exc)) from None
        listings.append((wanted, listing))
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
