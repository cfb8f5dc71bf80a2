"""Response bodies of the HydraDB v1 endpoints that the tenant models do not
cover: declared here so that FastAPI documents them and no route builds a dict
by hand. Field names and order are the wire shape; do not rename them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from recall_engine.core.hydra import Entity, RelationEvidence


class DeleteMemoryResponse(BaseModel):
    success: bool
    user_memory_deleted: bool


class ProcessingStatus(BaseModel):
    file_id: str
    indexing_status: Literal["completed", "errored"]
    success: bool
    error_code: str | None
    message: str


class VerifyProcessingResponse(BaseModel):
    statuses: list[ProcessingStatus]


class DeleteResult(BaseModel):
    id: str
    deleted: bool
    error: str | None


class DeleteKnowledgeResponse(BaseModel):
    success: bool
    message: str
    results: list[DeleteResult]
    deleted_count: int


class TenantDeleteResponse(BaseModel):
    tenant_id: str
    status: str
    message: str


class SubTenantIdsResponse(BaseModel):
    sub_tenant_ids: list[str]
    message: str


class InfraFlags(BaseModel):
    scheduler_status: bool
    graph_status: bool
    vectorstore_status: list[bool]


class InfraStatusResponse(BaseModel):
    tenant_id: str
    org_id: str
    infra: InfraFlags
    message: str


class CollectionStats(BaseModel):
    row_count: int
    dimensions: int


class MonitorResponse(BaseModel):
    tenant_id: str
    normal_collection: CollectionStats
    memory_collection: CollectionStats
    message: str


class Pagination(BaseModel):
    page: int
    page_size: int
    total: int
    total_pages: int
    has_next: bool
    has_previous: bool


class ListedMemory(BaseModel):
    memory_id: str
    memory_content: str


class ListMemoriesResponse(BaseModel):
    success: bool
    user_memories: list[ListedMemory]
    total: int
    pagination: Pagination


class SourceContent(BaseModel):
    text: str


class SourceLinks(BaseModel):
    cortex_source_ids: list[object]


class ListedSource(BaseModel):
    id: str
    tenant_id: str
    sub_tenant_id: str
    title: object
    type: object
    description: object
    url: object
    timestamp: object
    content: SourceContent
    tenant_metadata: dict[str, object]
    document_metadata: dict[str, object]
    relations: SourceLinks


class ListSourcesResponse(BaseModel):
    success: bool
    message: str
    sources: list[ListedSource]
    total: int
    pagination: Pagination


class RelationGroup(BaseModel):
    source: Entity
    target: Entity
    relations: list[RelationEvidence]
    chunk_id: object


class GraphRelationsResponse(BaseModel):
    relations: list[RelationGroup]
    success: bool
    message: str


class FetchContentResponse(BaseModel):
    success: bool
    source_id: str
    content: str | None
    presigned_url: str | None
    content_type: str
    size_bytes: int
    message: str


class AdminMetrics(BaseModel):
    uptime_s: float
    tenants: int


class TenantMetrics(BaseModel):
    uptime_s: float
    tenant_id: str | None


class HealthResponse(BaseModel):
    status: Literal["ok"]


class EngineCallResult(BaseModel):
    """``POST /api/v1/engine/{method}``: the method's return value, as JSON."""

    result: object
