"""Public data models: what callers pass to remember() and get back from recall()."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from recall_engine.search_types import SearchType


class Document(BaseModel):
    """A piece of text to remember: a note, an article, a file's contents."""

    model_config = ConfigDict(extra="forbid")

    text: str
    title: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime | None = None
    source_id: str | None = Field(
        default=None, description="Stable id of the source; a new version replaces the old one."
    )

    @field_validator("text", mode="before")
    @classmethod
    def _text_is_str(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"Document.text must be a string, got {type(value).__name__}")
        return value


class Message(BaseModel):
    """One turn of a conversation."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    speaker: str | None = None
    text: str
    timestamp: datetime | None = None

    @field_validator("text", mode="before")
    @classmethod
    def _text_is_str(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise ValueError(f"Message.text must be a string, got {type(value).__name__}")
        return value


class Conversation(BaseModel):
    """An ordered list of messages, remembered one chunk per message."""

    model_config = ConfigDict(extra="forbid")

    messages: list[Message]
    title: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    source_id: str | None = None


class SourceRef(BaseModel):
    """Where a result came from: the provenance of one chunk."""

    model_config = ConfigDict(frozen=True)

    data_id: str
    chunk_id: str
    chunk_index: int
    document_name: str
    dataset_id: str
    dataset_name: str
    message_ids: list[str] = Field(default_factory=list)


class ResponseGraphEntry(BaseModel):
    """One result from the permanent memory (graph and vectors)."""

    text: str
    kind: str
    search_type: SearchType
    dataset_id: str | None = None
    dataset_name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    raw: Any = None
    structured: dict[str, Any] | None = None
    score: float | None = None
    source: Literal["graph"] = "graph"


class ResponseQAEntry(BaseModel):
    """One entry from a session cache."""

    time: datetime
    qa_id: str
    question: str
    context: str = ""
    answer: str = ""
    feedback_text: str | None = None
    feedback_score: float | None = None
    source: Literal["session"] = "session"


class RememberResult(BaseModel):
    """What remember() stored."""

    tenant_id: str
    dataset_id: str
    dataset_name: str
    data_ids: list[str] = Field(description="Every data item in the input, new or already known.")
    new_data_ids: list[str] = Field(default_factory=list)
    skipped_data_ids: list[str] = Field(
        default_factory=list, description="Already stored with the same content: nothing added."
    )
    replaced_data_ids: list[str] = Field(default_factory=list)
    chunk_count: int = 0
    entity_count: int = Field(default=0, description="New entities (mentions of known ones merge).")
    relation_count: int = Field(default=0, description="Relations written.")
    event_count: int = Field(default=0, description="Events written.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
