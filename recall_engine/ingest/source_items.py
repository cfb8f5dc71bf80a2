"""Source items: documents and conversations checked and shaped for an ingest,
and the JSON shapes (document, conversation, list of them) that turn into them."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from recall_engine.core.errors import InvalidFieldError, InvalidInputError
from recall_engine.core.inputs import MAX_JSON_DEPTH
from recall_engine.core.item_names import conversation_name, opening_words
from recall_engine.core.models import Conversation, Document, Message, When
from recall_engine.core.validation import check_metadata, check_text

ModelT = TypeVar("ModelT", bound=BaseModel)
_WHEN: TypeAdapter[datetime | None] = TypeAdapter(When)


@dataclass
class SourceItem:
    """One data item to store: a document (text) or a conversation (messages)."""

    kind: str  # "text", "document", "file", "conversation"
    name: str
    text: str | None = None
    messages: list[Message] | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    created_at: datetime | None = None
    source_id: str | None = None

    @property
    def chars(self) -> int:
        """Characters of text: a document's, or all of a conversation's messages."""
        if self.messages is not None:
            return sum(len(m.text) for m in self.messages)
        return len(self.text or "")


def check_when(value: object, *, what: str) -> datetime | None:
    """A time as the models accept it (a datetime, an ISO string, a written date
    with a year), checked again here: a value assigned after the model was built
    (``doc.created_at = "yesterday"``) or set through ``model_construct`` skips
    the model's own validation and would otherwise reach the store.

    Raises:
        InvalidInputError: ``value`` is not a readable time; the message names ``what``.
    """
    if value is None or isinstance(value, datetime):
        return value
    try:
        parsed = _WHEN.validate_python(value)
    except ValidationError as exc:
        reason = exc.errors()[0].get("msg", str(exc)) if exc.errors() else str(exc)
        raise InvalidInputError(f"{what}: {reason}") from None
    assert parsed is None or isinstance(parsed, datetime)
    return parsed


def from_document(doc: Document, *, kind: str, name: str | None = None) -> SourceItem:
    """A document as an item, its text, title and time checked again.

    Raises:
        InvalidInputError: empty or invalid text, metadata or time.
    """
    check_text(doc.text, what="Document.text")
    for label, value in (("Document.title", doc.title), ("Document.source_id", doc.source_id)):
        if value is not None:
            check_text(value, what=label)
    if not doc.text.strip():
        raise InvalidInputError("Cannot remember empty text: the document has no content.")
    return SourceItem(
        kind=kind,
        name=name or doc.title or opening_words(doc.text),
        text=doc.text,
        metadata=check_metadata(doc.metadata, what="Document.metadata"),
        created_at=check_when(doc.created_at, what="Document.created_at"),
        source_id=doc.source_id,
    )


def from_conversation(conv: Conversation, *, name: str | None = None) -> SourceItem:
    """A conversation as an item: messages checked, ids given where none are.

    Raises:
        InvalidInputError: no messages, ids on some messages only or repeated,
            empty or invalid text, or an unreadable timestamp.
    """
    if not conv.messages:
        raise InvalidInputError("Cannot remember a conversation with no messages.")
    with_id = [m for m in conv.messages if m.id is not None and m.id.strip()]
    if with_id and len(with_id) != len(conv.messages):
        missing = next(i for i, m in enumerate(conv.messages) if not (m.id and m.id.strip()))
        raise InvalidInputError(
            f"Message {missing} has no id while other messages have ids; give every message an "
            "id or none of them."
        )
    ids = [m.id for m in conv.messages if m.id]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InvalidInputError(f"Message id {dup!r} appears more than once in the conversation.")
    messages = []
    for index, message in enumerate(conv.messages):
        for label, value in (
            ("text", message.text),
            ("speaker", message.speaker),
            ("id", message.id),
        ):
            if value is not None:
                check_text(value, what=f"Message {index} {label}")
        if not message.text.strip():
            raise InvalidInputError(f"Message {message.id or index} has empty text.")
        when = check_when(message.timestamp, what=f"Message {message.id or index} timestamp")
        update = {"timestamp": when} | ({} if message.id else {"id": f"m{index}"})
        messages.append(message.model_copy(update=update))
    first = messages[0]
    default_name = conversation_name(str(first.id), str(messages[-1].id))
    return SourceItem(
        kind="conversation",
        name=name or conv.title or default_name,
        messages=messages,
        metadata=check_metadata(conv.metadata, what="Conversation.metadata"),
        created_at=first.timestamp,
        source_id=conv.source_id,
    )


def json_line(path: Path, number: int, line: str) -> object:
    """One line of a ``.jsonl`` file, parsed.

    Raises:
        InvalidInputError: the line is not JSON; the message names file and line.
    """
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"File {path}, line {number}: not valid JSON ({exc.msg} at column {exc.colno}); "
            "a .jsonl file holds one JSON object per line."
        ) from exc


def is_message(value: object) -> bool:
    """Whether a JSON value is one message of a conversation (``text`` and a speaker or id)."""
    return isinstance(value, dict) and "text" in value and ("speaker" in value or "id" in value)


def from_json_value(
    value: object, *, origin: str, title: str | None = None, depth: int = 0
) -> Iterable[SourceItem]:
    """The items of a parsed JSON value: a document, a conversation, or a list of them.

    Raises:
        InvalidInputError: any other shape, or lists nested too deep.
    """
    if depth > MAX_JSON_DEPTH:
        raise InvalidInputError(f"{origin}: lists nest more than {MAX_JSON_DEPTH} levels deep.")
    if isinstance(value, list) and value and all(is_message(v) for v in value):
        conv = validated(Conversation, {"messages": value, "title": title}, origin)
        yield _named(origin, lambda: from_conversation(conv))
    elif isinstance(value, list):
        for index, element in enumerate(value):
            yield from from_json_value(
                element, origin=f"{origin}[{index}]", title=None, depth=depth + 1
            )
    elif isinstance(value, dict) and "messages" in value:
        conv = validated(Conversation, {"title": title, **value}, origin)
        yield _named(origin, lambda: from_conversation(conv))
    elif isinstance(value, dict) and "text" in value:
        doc = validated(Document, {"title": title, **value}, origin)
        yield _named(origin, lambda: from_document(doc, kind="file"))
    else:
        raise InvalidInputError(
            f"{origin}: expected an object with 'text' (a document) or 'messages' (a "
            "conversation), or a list of them."
        )


def _named(origin: str, make: Callable[[], SourceItem]) -> SourceItem:
    """``make()``; its error names where the value came from (a file, a line)."""
    try:
        return make()
    except InvalidInputError as exc:
        raise InvalidInputError(f"{origin}: {exc}") from exc


def validated(model: type[ModelT], value: dict[str, object], origin: str) -> ModelT:
    """``model.model_validate(value)``; an error names where the value came from."""
    try:
        return model.model_validate(value)
    except InvalidFieldError as exc:
        raise InvalidFieldError(f"{origin}: {exc}", field=exc.field, errors=exc.errors) from exc
