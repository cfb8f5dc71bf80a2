"""Public data models: what callers pass to remember() and get back from recall()."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

import regex
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from recall_engine.core.search_types import SearchType

_YEAR = regex.compile(r"\b(1[0-9]{3}|2[0-9]{3})\b")


def _parse_when(value: Any) -> Any:
    """Accept datetimes, dates, ISO strings and written dates that name a year.

    "1:56 pm on 8 May, 2023" parses; relative phrases ("yesterday") are refused,
    because their meaning would depend on the day the data was ingested.
    """
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if not isinstance(value, str):
        return value  # pydantic reports the type error
    text = value.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        pass
    if _YEAR.search(text):
        import dateparser

        parsed = dateparser.parse(
            text.replace(" on ", " "),
            languages=["en"],
            settings={"PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False},
        )
        if parsed is not None:
            return parsed
    raise ValueError(
        f"cannot read {value!r} as a date and time; use ISO 8601 (2023-05-08T13:56:00) or a "
        "written date with a year (8 May 2023, 1:56 pm)"
    )


When = Annotated[datetime | None, BeforeValidator(_parse_when)]


class Document(BaseModel):
    """A piece of text to remember: a note, an article, a file's contents."""

    model_config = ConfigDict(extra="forbid")

    text: str
    title: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: When = None
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
    timestamp: When = None

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
    extraction: dict[str, str] = Field(
        default_factory=dict,
        description='Graph extraction per data id: "ok", "failed: <reason>" (the item is '
        "stored without its graph; remember() of the same content retries it) or "
        '"skipped" (no extractor, or already stored).',
    )
    retried_data_ids: list[str] = Field(
        default_factory=list,
        description="Stored before with a failed extraction: extracted again in this call.",
    )
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
