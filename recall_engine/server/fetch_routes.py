"""HydraDB v1 listing and fetching endpoints: list data, graph relations of a
source, fetch a source's content.

A body field the call does not take is refused (``server.request_fields``); every
field ``hydra-db-python`` sends is declared, ``include_fields`` taken and not
applied (every field is listed).
"""

from __future__ import annotations

import math
from typing import Literal

from fastapi import APIRouter, Depends, Query
from pydantic import Field

from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ERROR_RESPONSES
from recall_engine.server.request_fields import KnownFields, known_query
from recall_engine.server.responses import (
    FetchContentResponse,
    GraphRelationsResponse,
    ListedMemory,
    ListedSource,
    ListMemoriesResponse,
    ListSourcesResponse,
    Pagination,
    RelationGroup,
    SourceContent,
    SourceLinks,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.source_filter import SourceFilter


class ListFilters(KnownFields):
    """Exact values, ANDed: per group, field name -> the value it must have
    (``tenants.source_filter``; a filter that could never match is a 400)."""

    what = "the filters of POST /list/data"

    tenant_metadata: dict[str, object] | None = None
    document_metadata: dict[str, object] | None = None
    source_fields: dict[str, object] | None = Field(
        default=None, description="Fields of the source itself (title, type, url, ...)."
    )

    def source_filter(self) -> SourceFilter:
        """The tenant API's filter of these values."""
        return SourceFilter(
            attributes=self.tenant_metadata or {},
            additional=self.document_metadata or {},
            source_fields=self.source_fields or {},
        )


class ListDataRequest(KnownFields):
    what = "POST /list/data"

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    kind: Literal["knowledge", "memories"] = "knowledge"
    # An empty list is refused: read as "no ids", it would list everything.
    source_ids: list[str] | None = Field(default=None, min_length=1, max_length=100)
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=50, ge=1, le=100)
    filters: ListFilters | None = None
    include_fields: list[str] | None = None


class FetchContentRequest(KnownFields):
    what = "POST /fetch/content"

    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    source_id: str = Field(min_length=1)
    mode: Literal["content", "url", "both"] = "content"
    expiry_seconds: int | None = Field(default=None, ge=60, le=604800)


def _pagination(total: int, page: int, size: int) -> Pagination:
    pages = max(1, math.ceil(total / size))
    return Pagination(
        page=page,
        page_size=size,
        total=total,
        total_pages=pages,
        has_next=page < pages,
        has_previous=page > 1,
    )


def fetch_router(api: TenantAPI, auth: Authenticator) -> APIRouter:
    """Listing and fetching endpoints over ``api``."""
    router = APIRouter(responses=ERROR_RESPONSES)

    # listing and fetching

    @router.post("/list/data", tags=["fetch"])
    async def list_data(
        body: ListDataRequest, who: Principal = Depends(auth)
    ) -> ListSourcesResponse | ListMemoriesResponse:
        who.check(body.tenant_id)
        memories = body.kind == "memories"
        listing = await api.listing(
            body.tenant_id,
            sub_tenant_id=body.sub_tenant_id,
            collection="mem" if memories else "kb",
            source_ids=body.source_ids,
            where=body.filters.source_filter() if body.filters is not None else None,
        )
        start = (body.page - 1) * body.page_size
        page = await listing.page(start, start + body.page_size)
        meta = _pagination(listing.total, body.page, body.page_size)
        if memories:
            return ListMemoriesResponse(
                success=True,
                user_memories=[
                    ListedMemory(memory_id=s["id"], memory_content=s["text"]) for s in page
                ],
                total=meta.total,
                pagination=meta,
            )
        sub = body.sub_tenant_id or "default"
        return ListSourcesResponse(
            success=True,
            message=f"{meta.total} sources",
            sources=[
                ListedSource(
                    id=s["id"],
                    tenant_id=body.tenant_id,
                    sub_tenant_id=sub,
                    title=s["title"],
                    type=s["type"],
                    description=s["description"],
                    url=s["url"],
                    timestamp=s["timestamp"],
                    content=SourceContent(text=s["text"]),
                    tenant_metadata=s["tenant_metadata"],
                    document_metadata=s["document_metadata"],
                    relations=SourceLinks(cortex_source_ids=s["relations"]),
                )
                for s in page
            ],
            total=meta.total,
            pagination=meta,
        )

    @router.get("/list/graph_relations_by_id", tags=["fetch"])
    async def graph_relations_by_id(
        source_id: str = Query(min_length=1),
        tenant_id: str = Query(min_length=1),
        is_memory: bool = False,
        sub_tenant_id: str | None = None,
        limit: int = Query(default=100, ge=1, le=1000),
        who: Principal = Depends(auth),
        _: None = Depends(known_query),
    ) -> GraphRelationsResponse:
        who.check(tenant_id)
        groups = await api.source_relations(
            tenant_id, source_id, sub_tenant_id=sub_tenant_id, is_memory=is_memory, limit=limit
        )
        relations = [
            RelationGroup(
                source=g["source"],
                target=g["target"],
                relations=g["relations"],
                chunk_id=g["chunk_id"],
            )
            for g in groups
        ]
        return GraphRelationsResponse(
            relations=relations, success=True, message=f"{len(relations)} relations"
        )

    @router.post("/fetch/content", tags=["fetch"])
    async def fetch_content(
        body: FetchContentRequest, who: Principal = Depends(auth)
    ) -> FetchContentResponse:
        who.check(body.tenant_id)
        source = await api.source(body.tenant_id, body.source_id, sub_tenant_id=body.sub_tenant_id)
        text = source["text"]
        return FetchContentResponse(
            success=True,
            source_id=body.source_id,
            content=text if body.mode in ("content", "both") else None,
            presigned_url=None,
            content_type="text/plain; charset=utf-8",
            size_bytes=len(text.encode("utf-8")),
            message="content of the stored chunks"
            + ("; this server has no presigned URLs" if body.mode != "content" else ""),
        )

    return router
