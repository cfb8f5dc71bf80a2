"""HydraDB v1 request and response shapes, field for field.

Existing HydraDB clients (the official SDK among them) send and parse these, so
names, defaults and optionality follow the public OpenAPI schemas. Requests, and
the items nested in them, declare every field the official SDK
(``hydra-db-python``) sends, the ones not used here included, and refuse any other
(``core.known_fields``): dropped, a misspelled ``metadata_filter`` would search the
whole sub-tenant. Responses carry exactly HydraDB's fields, plus ``alpha_used`` on
a ``RetrievalResult`` (clients ignore extra fields).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from recall_engine.core.known_fields import KnownFields

DEFAULT_SUB_TENANT = "default"


def _json_object(value: object) -> object:
    """Metadata may arrive as an object or, from the SDK, as a JSON string of one."""
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except ValueError as exc:
            raise ValueError(f"expected a JSON object, got {value[:80]!r}") from exc
    return value


JsonObject = Annotated[dict[str, object] | None, BeforeValidator(_json_object)]


class _Request(KnownFields):
    """A request shape: an unknown field is a validation error naming it."""


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


# recall

# The dense lane's share of the dense + BM25 weight when a request gives no alpha:
# recall()'s passage lane weighs both lists equally after normalising each over its
# own candidates, so 0.5 is HYBRID_COMPLETION's ranking. (HydraDB documents 0.8 for
# its own scores; on these, 0.8 leans on meaning and ranks below the balance:
# docs/decisions.md.)
DEFAULT_ALPHA = 0.5


class RecallSearchRequest(_Request):
    """Request body of ``full_recall`` (knowledge) and ``recall_preferences`` (memories)."""

    what = "a full_recall / recall_preferences request"

    tenant_id: str = Field(min_length=1, description="The tenant to search.")
    sub_tenant_id: str | None = Field(
        default=None, description="The sub-tenant; the default sub-tenant when omitted."
    )
    query: str = Field(min_length=1, description="Search terms or a natural-language question.")
    max_results: int | None = Field(default=None, ge=1, le=1000)
    mode: Literal["fast", "thinking"] = "fast"
    alpha: Annotated[float, Field(ge=0.0, le=1.0)] | Literal["auto"] = Field(
        default=DEFAULT_ALPHA,
        description="0.0 = keyword ranking, 1.0 = semantic ranking, or 'auto'; the default "
        "0.5 is recall()'s own HYBRID_COMPLETION balance.",
    )
    recency_bias: float = Field(default=0.0, ge=0.0, le=1.0)
    as_of: datetime | None = Field(
        default=None,
        description="Answer as of this time (ISO 8601; naive means UTC): only what was "
        "stated at or before it, and facts marked superseded only if replaced by then.",
    )
    graph_context: bool = False
    search_forceful_relations: bool = True
    additional_context: str | None = None
    metadata_filters: dict[str, object] | None = Field(
        default=None,
        description="AND of exact equalities: top-level keys are tenant fields declared "
        "with enable_match; 'additional_metadata' holds per-source equalities. No operators.",
    )


class BooleanRecallRequest(_Request):
    what = "a boolean_recall request"
    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    query: str = Field(min_length=1)
    operator: Literal["or", "and", "phrase"] = "or"
    max_results: int | None = Field(default=None, ge=1, le=1000)
    search_mode: Literal["sources", "memories"] = "sources"


class QnARequest(_Request):
    what = "a qna request"
    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    question: str = Field(min_length=1)
    max_chunks: int | None = Field(default=None, ge=1, le=100)
    mode: Literal["fast", "thinking"] = "fast"
    alpha: float | None = Field(default=None, ge=0.0, le=1.0)
    search_mode: Literal["sources", "memories"] = "sources"
    include_graph_context: bool = False
    extra_context: str | None = None
    llm_provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


class Entity(_Response):
    name: str
    type: str
    namespace: str = "default"
    entity_id: str
    identifier: str | None = None


class RelationEvidence(_Response):
    canonical_predicate: str
    raw_predicate: str
    context: str
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    temporal_details: str | None = None
    timestamp: datetime | None = None
    relationship_id: str
    chunk_id: str | None = None
    source_entity_id: str | None = None
    target_entity_id: str | None = None


class PathTriplet(_Response):
    source: Entity
    relation: RelationEvidence
    target: Entity


class ScoredPathResponse(_Response):
    triplets: list[PathTriplet]
    relevancy_score: float
    combined_context: str | None = None
    group_id: str | None = None
    source_chunk_ids: list[str] | None = None


class GraphContext(_Response):
    query_paths: list[ScoredPathResponse] = Field(default_factory=list)
    chunk_relations: list[ScoredPathResponse] = Field(default_factory=list)
    chunk_id_to_group_ids: dict[str, list[str]] = Field(default_factory=dict)


class VectorStoreChunk(_Response):
    chunk_uuid: str
    source_id: str
    chunk_content: str
    source_type: str = ""
    source_upload_time: str = ""
    source_title: str = ""
    source_last_updated_time: str = ""
    layout: str | None = None
    relevancy_score: float | None = None
    document_metadata: dict[str, object] | None = None
    tenant_metadata: dict[str, object] | None = None
    extra_context_ids: list[str] | None = None


class SourceInfo(_Response):
    id: str
    title: str = ""
    type: str = ""
    description: str = ""
    url: str = ""
    timestamp: str = ""
    tenant_metadata: dict[str, object] = Field(default_factory=dict)
    document_metadata: dict[str, object] = Field(default_factory=dict)


class RetrievalResult(_Response):
    """Chunks in rank order, their deduplicated sources, graph context and the
    chunks of forcefully related sources (``additional_context``)."""

    chunks: list[VectorStoreChunk] = Field(default_factory=list)
    sources: list[SourceInfo] = Field(default_factory=list)
    graph_context: GraphContext = Field(default_factory=GraphContext)
    additional_context: dict[str, VectorStoreChunk] = Field(default_factory=dict)
    alpha_used: float | None = Field(
        default=None, description="The hybrid weight the search used (the chosen one for 'auto')."
    )


class QnASearchResponse(_Response):
    success: bool = True
    answer: str
    chunks: list[VectorStoreChunk] = Field(default_factory=list)
    graph_context: GraphContext | None = None
    model_used: str | None = None
    timing: dict[str, float] = Field(default_factory=dict)
    answer_mode: Literal["llm", "extractive"] = "extractive"


# ingestion


class UserAssistantPair(_Request):
    what = "a user/assistant pair"
    user: str
    assistant: str


class ForcefulRelations(_Request):
    what = "a source's relations"
    cortex_source_ids: list[str] = Field(default_factory=list)
    properties: dict[str, object] | None = None


def _relations(value: object) -> object:
    if isinstance(value, list):
        return {"cortex_source_ids": value}
    return value


Relations = Annotated[ForcefulRelations | None, BeforeValidator(_relations)]


class MemoryItem(_Request):
    """One memory: text (plain or markdown) or a user/assistant conversation."""

    what = "a memory"

    source_id: str | None = None
    title: str | None = None
    text: str | None = None
    user_assistant_pairs: list[UserAssistantPair] | None = None
    is_markdown: bool | None = None
    infer: bool | None = None
    custom_instructions: str | None = None
    user_name: str | None = None
    expiry_time: int | None = Field(default=None, description="Time to live, in seconds.")
    timestamp: datetime | None = None
    tenant_metadata: JsonObject = None
    additional_metadata: JsonObject = None
    document_metadata: JsonObject = None
    relations: Relations = None


class AddMemoryRequest(_Request):
    what = "an add_memory request"
    memories: list[MemoryItem] = Field(min_length=1, max_length=1000)
    tenant_id: str = Field(min_length=1)
    sub_tenant_id: str | None = None
    upsert: bool = True


class MemoryResultItem(_Response):
    source_id: str
    title: str | None = None
    status: Literal["queued", "processing", "completed", "failed"] = "completed"
    infer: bool | None = None
    error: str | None = None


class AddMemoryResponse(_Response):
    success: bool = True
    message: str = ""
    results: list[MemoryResultItem] = Field(default_factory=list)
    success_count: int = 0
    failed_count: int = 0


class SourceContent(_Request):
    """A source's content: its ``text`` (else ``markdown``) is what is indexed; the
    other fields the SDK sends are taken and not used."""

    what = "a source's content"

    text: str | None = None
    markdown: str | None = None
    html_base64: str | None = None
    csv_base64: str | None = None
    files: list[dict[str, object]] | None = None
    layout: list[dict[str, object]] | None = None


class Attachment(_Request):
    """A file attached to a source (the SDK's ``AttachmentModel``); not indexed here."""

    what = "a source's attachment"

    id: str | None = None
    url: str | None = None
    title: str | None = None
    content_type: str | None = None
    content_url: str | None = None
    misc: dict[str, object] | None = None
    content: SourceContent | None = None


class KnowledgeSource(_Request):
    """A document for the knowledge collection (an app source or an uploaded file).

    Its id is ``id``, else ``source_id``, else ``file_id`` (an uploaded file's).
    ``tenant_id`` / ``sub_tenant_id`` (the SDK's ``SourceModel`` sends them) must be
    the request's: the HTTP routes refuse others. ``note``, ``meta`` (system
    attributes) and ``attachments`` are taken and not used.
    """

    what = "a knowledge source"

    id: str | None = None
    source_id: str | None = None
    file_id: str | None = None
    tenant_id: str | None = None
    sub_tenant_id: str | None = None
    title: str | None = None
    type: str | None = None
    description: str | None = None
    note: str | None = None
    url: str | None = None
    timestamp: datetime | None = None
    text: str | None = None
    content: SourceContent | None = None
    expiry_time: int | None = None
    tenant_metadata: JsonObject = None
    additional_metadata: JsonObject = None
    document_metadata: JsonObject = None
    metadata: JsonObject = None
    meta: dict[str, object] | None = None
    attachments: list[Attachment] | None = None
    relations: Relations = None

    @model_validator(mode="after")
    def _file_id(self) -> Self:
        if self.id is None and self.source_id is None and self.file_id:
            self.id = self.file_id
        return self


class SourceUploadResultItem(_Response):
    source_id: str
    filename: str | None = None
    status: Literal["queued", "processing", "completed", "failed"] = "completed"
    error: str | None = None


class SourceUploadResponse(_Response):
    success: bool = True
    message: str = ""
    results: list[SourceUploadResultItem] = Field(default_factory=list)
    success_count: int = 0
    failed_count: int = 0


# tenants


class CustomPropertyDefinition(_Request):
    what = "a metadata schema field"
    name: str = Field(min_length=1)
    data_type: str | None = None
    max_length: int | None = None
    enable_analyzer: bool | None = None
    enable_match: bool | None = None
    enable_dense_embedding: bool | None = None
    enable_sparse_embedding: bool | None = None
    nullable: bool | None = None


class TenantCreateRequest(_Request):
    what = "a create_tenant request"
    tenant_id: str = Field(min_length=1)
    is_embeddings_tenant: bool = False
    embeddings_dimension: int | None = None
    tenant_metadata_schema: list[CustomPropertyDefinition] | None = None


class TenantCreateAcceptedResponse(_Response):
    status: str = "created"
    tenant_id: str
    message: str = ""


class ErrorResponse(_Response):
    success: bool = False
    message: str = Field(default="Error occurred", min_length=1)
    error_code: str | None = None


class ActualErrorResponse(_Response):
    detail: ErrorResponse
