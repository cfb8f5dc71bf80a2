"""What the MCP tools return: pydantic models, so every tool publishes an output schema
and answers with structured content (and the same JSON as text for older clients)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from recall_engine.core.facts import Fact
from recall_engine.core.models import (
    RecallResult,
    ResponseQAEntry,
    ResponseSessionContextEntry,
    ResponseTraceEntry,
    SourceRef,
)


class RecallItem(BaseModel):
    """One recall result with what it rests on."""

    text: str
    kind: str = Field(description="chunk, graph_completion, triplet, ... or session_answer.")
    score: float | None = None
    source: Literal["graph", "session", "trace", "session_context"] = Field(
        description="Where the result came from."
    )
    search_type: str | None = None
    dataset_name: str | None = None
    sources: list[SourceRef] = Field(
        default_factory=list,
        description="Provenance in rank order: data_id, chunk_id, message_ids of each chunk.",
    )
    qa_id: str | None = Field(
        default=None, description="The session entry this answer was stored as (add_feedback)."
    )
    references: list[dict[str, object]] | None = None

    @classmethod
    def of(cls, entry: RecallResult) -> RecallItem:
        if isinstance(entry, ResponseTraceEntry):
            return cls(text=entry.text, kind=entry.status, score=entry.score, source="trace")
        if isinstance(entry, ResponseSessionContextEntry):
            return cls(text=entry.text, kind="session_context", source="session_context")
        if isinstance(entry, ResponseQAEntry):
            return cls(
                text=entry.answer or entry.context,
                kind="session_answer",
                source="session",
                qa_id=entry.qa_id,
            )
        meta = entry.metadata
        return cls(
            text=entry.text,
            kind=entry.kind,
            score=entry.score,
            source="graph",
            search_type=str(entry.search_type),
            dataset_name=entry.dataset_name,
            sources=[SourceRef.model_validate(s) for s in meta.get("sources", [])],
            qa_id=meta.get("qa_id"),
            references=meta.get("references"),
        )


class RecallOutput(BaseModel):
    results: list[RecallItem]
    route: dict[str, object] | None = Field(
        default=None,
        description="The router's decision (search_type, score, runner_up, fired rules) when "
        "query_type was auto.",
    )


class RememberOutput(BaseModel):
    dataset_name: str
    dataset_id: str
    data_ids: list[str]
    new_data_ids: list[str]
    skipped_data_ids: list[str]
    chunk_count: int
    entity_count: int
    relation_count: int


class ForgetOutput(BaseModel):
    chunks_removed: int


class DatasetStatus(BaseModel):
    name: str
    id: str
    items: int
    chunks: int


class StatusOutput(BaseModel):
    version: str
    tenant_id: str
    mode: Literal["offline", "llm"] = Field(
        description="offline: extractive answers, rule-based graph; llm: answers by llm_model."
    )
    llm_model: str | None = None
    graph_extractor: str
    embedding_model: str
    datasets: list[DatasetStatus]
    tools: list[str] = Field(description="The tools this server lists.")
    more_tools: list[str] = Field(
        description="Tools this server can also offer: start it with --tools all to list them."
    )


class DatasetInfo(BaseModel):
    name: str
    id: str
    owner_name: str
    permission: str


class ItemInfo(BaseModel):
    data_id: str
    name: str | None = None
    dataset_name: str | None = None
    kind: str | None = None
    chunk_count: int | None = None
    created_at: str | None = None


class ChunkInfo(BaseModel):
    chunk_id: str
    chunk_index: int
    text: str
    message_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, object] = Field(default_factory=dict)


class ItemDetail(ItemInfo):
    dataset_id: str
    chunks: list[ChunkInfo]


class EntityInfo(BaseModel):
    id: str
    name: str
    type: str
    dataset_name: str | None = None
    score: float
    sources: list[SourceRef] = Field(default_factory=list)


class FactInfo(BaseModel):
    id: str
    source: str
    predicate: str
    target: str
    context: str
    time: str | None = Field(default=None, description="ISO 8601, when the fact states one.")
    confidence: float | None = None
    score: float
    dataset_name: str | None = None
    sources: list[SourceRef] = Field(default_factory=list)


class SubjectFactsOutput(BaseModel):
    subject: str
    facts: list[Fact] = Field(
        description="Each fact with valid_from, valid_until, superseded_by and current."
    )


class SessionEntry(BaseModel):
    qa_id: str
    time: str
    question: str
    answer: str
    feedback_score: float | None = None
    feedback_text: str | None = None

    @classmethod
    def of(cls, entry: ResponseQAEntry) -> SessionEntry:
        return cls(
            qa_id=entry.qa_id,
            time=entry.time.isoformat(),
            question=entry.question,
            answer=entry.answer,
            feedback_score=entry.feedback_score,
            feedback_text=entry.feedback_text,
        )


class DatasetsOutput(BaseModel):
    datasets: list[DatasetInfo]


class ItemsOutput(BaseModel):
    items: list[ItemInfo]


class EntitiesOutput(BaseModel):
    entities: list[EntityInfo]


class FactsOutput(BaseModel):
    facts: list[FactInfo]


class SessionOutput(BaseModel):
    session_id: str
    entries: list[SessionEntry]
