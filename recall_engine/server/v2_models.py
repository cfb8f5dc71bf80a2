"""HydraDB v2 request and response bodies, as the official ``hydradb-sdk`` 2.x sends
and parses them. Field names are the wire shape; do not rename them.

Every v2 answer is an envelope ``{"success", "data", "error", "meta"}``; the scope
is named ``database`` / ``collection`` (the v1 names ``tenant_id`` /
``sub_tenant_id`` are accepted too, and ``meta.deprecation`` says so). A request
body declares every field that ``hydradb-sdk`` 2.1.7 sends for its call, and
refuses any other (``server.request_fields``): dropped, a misspelled filter or
scope would widen what the request reads or changes.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from recall_engine.core.hydra import ErrorResponse
from recall_engine.core.recall_checks import MAX_TOP_K
from recall_engine.server.request_fields import KnownFields

API_VERSION = "2"
T = TypeVar("T")


class Scoped(KnownFields):
    """The scope of a request, in either spelling."""

    database: str | None = None
    tenant_id: str | None = None
    collection: str | None = None
    sub_tenant_id: str | None = None


class QueryRequest(Scoped):
    """``POST /query``."""

    what = "POST /query"
    query: str = Field(min_length=1, max_length=20_000)
    type: Literal["knowledge", "memory", "all"] = "knowledge"
    query_by: Literal["hybrid", "text"] = "hybrid"
    mode: Literal["fast", "thinking", "auto"] = "auto"
    alpha: float | Literal["auto"] | None = None
    recency_bias: float | None = Field(default=None, ge=0, le=1)
    max_results: int | None = Field(default=None, ge=1, le=MAX_TOP_K)
    attributes: dict[str, object] | None = None
    metadata_filters: dict[str, object] | None = None
    # 500: the most values one list of recall()'s filter language takes ($in, $iin).
    # An empty list is refused: read as "no filter", it would widen the query.
    ids: list[str] | None = Field(default=None, min_length=1, max_length=500)
    titles: list[str] | None = Field(default=None, min_length=1, max_length=500)
    collections: list[str] | dict[str, float] | None = None
    sub_tenant_ids: list[str] | dict[str, float] | None = None
    temporal_now: str | None = None
    temporal_intent: dict[str, object] | None = None
    additional_context: str | None = Field(default=None, max_length=20_000)
    response_format: Literal["", "structured", "markdown"] | None = None
    acl: list[str] | None = None
    code_search: bool | None = None
    graph_vector_prune: bool | None = None
    # Accepted and not used: tuning of HydraDB's own lanes.
    graph_context: bool | None = None
    num_related_chunks: int | None = None
    operator: str | None = None
    query_apps: bool | None = None
    query_forceful_relations: bool | None = None
    temporal_reasoning: bool | None = None
    graph_vector_prune_spacy_entities: bool | None = None

    @field_validator("collections", "sub_tenant_ids")
    @classmethod
    def _some(cls, value: list[str] | dict[str, float] | None) -> object:
        if value is not None and not value:
            raise ValueError("names no collection; name one at least, or leave it out")
        return value


class ListFilter(BaseModel):
    """``filters`` of ``context/list``: exact values (``server.v2_listing``). A group
    it does not know is refused (forbidden), not ignored: ignored, it would list
    everything."""

    model_config = ConfigDict(extra="forbid")

    metadata: dict[str, object] | None = None
    additional_metadata: dict[str, object] | None = None
    source_fields: dict[str, object] | None = None

    @model_validator(mode="before")
    @classmethod
    def _known_groups(cls, data: object) -> object:
        if isinstance(data, dict):
            unknown = [str(k) for k in data if k not in cls.model_fields]
            if unknown:
                raise ValueError(
                    f"{', '.join(unknown)}: not a filter group; use metadata (v1's "
                    "tenant_metadata), additional_metadata or source_fields."
                )
        return data


class ListRequest(Scoped):
    """``POST /context/list``. ``include_fields`` and ``group_threads`` are taken and
    not applied: every field is listed, each turn as an item of its own."""

    what = "POST /context/list"
    type: Literal["knowledge", "memory", "all"] = "knowledge"
    ids: list[str] | None = Field(default=None, min_length=1, max_length=1000)
    filters: ListFilter | None = None
    include_fields: list[str] | None = None
    group_threads: bool | None = None
    page: int = Field(default=1, ge=1)
    page_size: int = Field(default=50, ge=1, le=1000)
    acl: list[str] | None = None


class DeleteRequest(Scoped):
    """``DELETE /context``."""

    what = "DELETE /context"
    ids: list[str] = Field(min_length=1, max_length=1000)
    type: Literal["knowledge", "memory"] | None = None


class DatabaseCreateRequest(KnownFields):
    """``POST /databases``."""

    what = "POST /databases"
    database: str | None = None
    tenant_id: str | None = None
    database_metadata_schema: list[dict[str, object]] | None = None
    tenant_metadata_schema: list[dict[str, object]] | None = None
    is_embeddings_tenant: bool | None = None
    embeddings_dimension: int | None = None


class FeedbackRequest(Scoped):
    """``POST /feedback``."""

    what = "POST /feedback"
    request_id: str = Field(min_length=1, max_length=200)
    rating: Literal["positive", "negative", "neutral"] | None = None
    feedback: str | None = Field(default=None, max_length=10_000)
    source: Literal["user", "agent"] | None = None
    ground_truth: dict[str, object] | None = None
    metadata: dict[str, object] | None = None


# responses


class Deprecation(BaseModel):
    deprecated: bool = True
    deprecated_field: str
    preferred_field: str
    message: str


class Meta(BaseModel):
    api_version: str = API_VERSION
    request_id: str
    latency_ms: float | None = None
    database: str | None = None
    collection: str | None = None
    deprecation: list[Deprecation] | None = None


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorMeta(BaseModel):
    api_version: str = API_VERSION
    request_id: str


class V2ErrorResponse(BaseModel):
    """Every error of a v2 path: v2's fields, and v1's ``detail`` beside them."""

    model_config = ConfigDict(extra="forbid")

    success: Literal[False] = False
    error: ErrorBody
    meta: ErrorMeta
    detail: ErrorResponse


class Envelope(BaseModel, Generic[T]):
    success: bool = True
    data: T
    error: None = None
    meta: Meta


class V2Chunk(BaseModel):
    chunk_uuid: str
    id: str
    chunk_content: str
    source_title: str | None = None
    source_type: str | None = None
    relevancy_score: float | None = None
    collection: str
    sub_tenant_id: str
    metadata: dict[str, object] = Field(default_factory=dict)
    additional_metadata: dict[str, object] = Field(default_factory=dict)
    source_upload_time: str | None = None


class V2Source(BaseModel):
    id: str
    title: str | None = None
    type: str | None = None
    collection: str
    sub_tenant_id: str
    timestamp: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
    additional_metadata: dict[str, object] = Field(default_factory=dict)


class V2RetrievalResult(BaseModel):
    chunks: list[V2Chunk]
    sources: list[V2Source]
    llm_prompt: str | None = None


class IngestResultItem(BaseModel):
    id: str
    title: str | None = None
    filename: str | None = None
    status: Literal["queued", "processing", "completed", "failed"] = "completed"
    error_code: str | None = None


class IngestResponse(BaseModel):
    success_count: int
    failed_count: int
    results: list[IngestResultItem]
    message: str


class ListItem(BaseModel):
    database: str
    tenant_id: str
    collection: str
    sub_tenant_id: str
    title: str | None = None
    type: str | None = None
    description: str | None = None
    timestamp: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
    additional_metadata: dict[str, object] = Field(default_factory=dict)


class SourceItem(ListItem):
    id: str


class MemoryListItem(ListItem):
    memory_id: str


class Pagination(BaseModel):
    page: int
    page_size: int
    total: int
    total_pages: int
    has_next: bool
    has_previous: bool


class ListResponse(BaseModel):
    sources: list[SourceItem] | None = None
    user_memories: list[MemoryListItem] | None = None
    pagination: Pagination
    total: int
    message: str


class ProcessingStatus(BaseModel):
    id: str
    indexing_status: Literal["completed", "errored"]
    error_code: str | None = None
    error_message: str | None = None
    message: str


class StatusResponse(BaseModel):
    statuses: list[ProcessingStatus]


class InspectResponse(BaseModel):
    id: str
    content: str
    content_type: str = "text/plain"
    size_bytes: int
    message: str


class DeleteItem(BaseModel):
    id: str
    deleted: bool


class DeleteResponse(BaseModel):
    deleted_count: int
    results: list[DeleteItem]
    message: str


class DatabaseResponse(BaseModel):
    database: str
    tenant_id: str
    status: str
    message: str


class DatabasesResponse(BaseModel):
    databases: list[str]
    tenant_ids: list[str]
    message: str


class CollectionsResponse(BaseModel):
    collections: list[str]
    sub_tenant_ids: list[str]
    message: str


class CollectionStats(BaseModel):
    row_count: int


class StatsResponse(BaseModel):
    database: str
    tenant_id: str
    knowledge_collection: CollectionStats
    memory_collection: CollectionStats
    message: str


class FeedbackResponse(BaseModel):
    feedback_id: str
    request_id: str
    recorded: bool
    created_at: str
    message: str
