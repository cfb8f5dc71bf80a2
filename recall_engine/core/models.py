"""Public data models: what callers pass to remember() and get back from recall()."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Annotated, Any, Literal

import regex
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from recall_engine.core.errors import InvalidFieldError
from recall_engine.core.search_types import SearchTypeField
from recall_engine.core.trusted import assemble

_YEAR = regex.compile(r"\b(1[0-9]{3}|2[0-9]{3})\b")


def _parse_when(value: object) -> object:
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


def _flat(exc: ValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors with locations from the outer model down.

    A nested input model's own ``InvalidFieldError`` (pydantic calls its
    ``__init__``) is unpacked.
    """
    out: list[dict[str, object]] = []
    for error in exc.errors(include_url=False):
        inner = (error.get("ctx") or {}).get("error")
        loc = tuple(error.get("loc", ()))
        if isinstance(inner, InvalidFieldError):
            out += [{**e, "loc": loc + tuple(e["loc"])} for e in inner.errors]
            continue
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        out.append({"loc": loc, "msg": message, "type": error.get("type", "value_error")})
    return out


def _where(model: str, loc: Iterable[int | str]) -> str:
    return model + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in loc)


def _field_error(model: str, exc: ValidationError) -> InvalidFieldError:
    """Pydantic's error as the library's: ``Message.timestamp: cannot read ...``."""
    errors = _flat(exc)
    parts = [f"{_where(model, e['loc'])}: {str(e['msg']).rstrip('.')}" for e in errors[:3]]
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    field = _where(model, errors[0]["loc"] if errors else ())
    return InvalidFieldError("; ".join(parts) + more + ".", field=field, errors=errors)


class _InputModel(BaseModel):
    """A public input model whose validation errors are ``InvalidFieldError``s.

    Library errors naming the field, not pydantic's ``ValidationError``.
    """

    def __init__(self, **data: object) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _field_error(type(self).__name__, exc) from None

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise _field_error(cls.__name__, exc) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError as exc:
            raise _field_error(cls.__name__, exc) from None


class Document(_InputModel):
    """A piece of text to remember: a note, an article, a file's contents.

    Raises:
        InvalidFieldError: a field that does not validate (an ``InvalidInputError``).
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    title: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
    created_at: When = None
    source_id: str | None = Field(
        default=None, description="Stable id of the source; a new version replaces the old one."
    )

    @field_validator("text", mode="before")
    @classmethod
    def _text_is_str(cls, value: object) -> object:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, got {type(value).__name__}")
        return value


class Message(_InputModel):
    """One turn of a conversation.

    Raises:
        InvalidFieldError: a field that does not validate (an ``InvalidInputError``).
    """

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    """The message's own id, returned in results' ``message_ids``; None: no id (then no
    message of the conversation may have one)."""
    speaker: str | None = None
    text: str
    timestamp: When = None

    @field_validator("text", mode="before")
    @classmethod
    def _text_is_str(cls, value: object) -> object:
        if not isinstance(value, str):
            raise ValueError(f"must be a string, got {type(value).__name__}")
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id_is_not_blank(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            raise ValueError("is empty; give the message an id or leave it out (None)")
        return value


class Conversation(_InputModel):
    """An ordered list of messages, remembered one chunk per message.

    Raises:
        InvalidFieldError: a field that does not validate (an ``InvalidInputError``).
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[Message]
    title: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
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

    @classmethod
    def trusted(
        cls,
        *,
        data_id: str,
        chunk_id: str,
        chunk_index: int,
        document_name: str,
        dataset_id: str,
        dataset_name: str,
        message_ids: list[str],
    ) -> SourceRef:
        """The ``SourceRef`` of these values, built without validation (``core.trusted``).

        Each value must be of its field's type already, as a stored record's are.
        """
        values = {
            "data_id": data_id,
            "chunk_id": chunk_id,
            "chunk_index": chunk_index,
            "document_name": document_name,
            "dataset_id": dataset_id,
            "dataset_name": dataset_name,
            "message_ids": message_ids,
        }
        return assemble(cls, values, set(_SOURCE_FIELDS))


_SOURCE_FIELDS = frozenset(SourceRef.model_fields)


class ResponseGraphEntry(BaseModel):
    """One result from the permanent memory (graph and vectors)."""

    text: str
    kind: str
    search_type: SearchTypeField
    dataset_id: str | None = None
    dataset_name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    raw: object = None
    structured: dict[str, object] | None = None
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


class ResponseTraceEntry(BaseModel):
    """One recorded call of a traced function (``RecallEngine.trace``)."""

    time: datetime
    trace_id: str
    session_id: str
    name: str
    status: Literal["ok", "error"]
    text: str = Field(description="The call in one line, as it is searched.")
    arguments: object = None
    result: object = None
    error: str | None = None
    duration_ms: float = 0.0
    summary: str | None = Field(
        default=None,
        description="The LLM's one-line summary of the call, searched with its text "
        "(trace(summarize=True) with an LLM configured; None otherwise).",
    )
    score: float | None = None
    source: Literal["trace"] = "trace"


class ResponseSessionContextEntry(BaseModel):
    """The block of session history and traces given to the LLM with the context.

    What of the session fed the answer; returned last, with ``source="session_context"``.
    """

    text: str
    session_id: str
    qa_ids: list[str] = Field(default_factory=list)
    trace_ids: list[str] = Field(default_factory=list)
    source: Literal["session_context"] = "session_context"


RecallResult = (
    ResponseGraphEntry | ResponseQAEntry | ResponseTraceEntry | ResponseSessionContextEntry
)
"""One element of what recall() returns; ``source`` tells which it is."""


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
        description="Stored before and stored again in this call: their graph extraction "
        "had failed (extracted again), or they were stored without sentence vectors (before "
        "them, or with sentence_vectors off) and this engine computes them.",
    )
    unread_files: dict[str, str] = Field(
        default_factory=dict,
        description="Files found in the given folders and not read, each with why (another "
        "type, a link to a folder, a broken link, a named pipe). Hidden files and folders "
        "are left out without being listed.",
    )
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
