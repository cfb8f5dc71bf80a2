"""Turn whatever remember() was given into a flat list of validated source items.

Everything is read and checked here, before any store is touched, so bad input
fails with a clear error and leaves the store as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import regex
from pydantic import ValidationError

from recall_engine.core.errors import InvalidInputError, UnsupportedFileTypeError
from recall_engine.core.models import Conversation, Document, Message
from recall_engine.ingest.validation import check_metadata

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".json", ".jsonl")


@dataclass
class SourceItem:
    """One data item to store: a document (text) or a conversation (messages)."""

    kind: str  # "text", "document", "file", "conversation"
    name: str
    text: str | None = None
    messages: list[Message] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    source_id: str | None = None


def collect_items(data: object, metadata: dict[str, Any] | None = None) -> list[SourceItem]:
    """Validate ``data`` and return its items; ``metadata`` is merged into each.

    Raises:
        InvalidInputError: empty text, unreadable or malformed file, bad conversation.
        UnsupportedFileTypeError: a file with an extension remember() cannot read.
    """
    base = check_metadata(metadata)
    items = list(_collect(data, depth=0))
    if not items:
        raise InvalidInputError("remember() got no data: pass text, a file, a folder or a list.")
    for item in items:
        item.metadata = {**base, **item.metadata}
    return items


def _collect(data: object, *, depth: int) -> Iterable[SourceItem]:
    if isinstance(data, Path):
        yield from _from_path(data)
    elif isinstance(data, str):
        if _looks_like_path(data):
            yield from _from_path(Path(data).expanduser())
        else:
            yield _from_document(Document(text=data), kind="text")
    elif isinstance(data, Document):
        yield _from_document(data, kind="document")
    elif isinstance(data, Conversation):
        yield _from_conversation(data)
    elif isinstance(data, dict):
        yield from _from_json_value(data, origin="dict")
    elif isinstance(data, list | tuple):
        if depth > 0:
            raise InvalidInputError("remember() accepts a list of items, not nested lists.")
        for element in data:
            yield from _collect(element, depth=depth + 1)
    else:
        raise InvalidInputError(
            f"remember() cannot store a {type(data).__name__}; pass a string, a path, a "
            "Document, a Conversation, or a list of these."
        )


# Extensions that mark a one-word string as a file name rather than text to remember.
_FILE_LIKE = regex.compile(
    r"^\S+\.(?:txt|md|markdown|json|jsonl|pdf|docx?|html?|csv|xlsx?|pptx?|rtf|xml|ya?ml)$",
    regex.IGNORECASE,
)


def _looks_like_path(text: str) -> bool:
    stripped = text.strip()
    if not stripped or "\n" in stripped or len(stripped) > 4096:
        return False
    if Path(stripped).expanduser().exists():
        return True
    return bool(_FILE_LIKE.match(stripped)) or (
        stripped.startswith(("/", "./", "~/", "../")) and " " not in stripped
    )


def _first_words(text: str, n: int = 8) -> str:
    words = text.split()
    name = " ".join(words[:n])
    return name + ("..." if len(words) > n else "")


def _from_document(doc: Document, *, kind: str, name: str | None = None) -> SourceItem:
    if not doc.text.strip():
        raise InvalidInputError("Cannot remember empty text: the document has no content.")
    return SourceItem(
        kind=kind,
        name=name or doc.title or _first_words(doc.text),
        text=doc.text,
        metadata=check_metadata(doc.metadata, what="Document.metadata"),
        created_at=doc.created_at,
        source_id=doc.source_id,
    )


def _from_conversation(conv: Conversation, *, name: str | None = None) -> SourceItem:
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
        if not message.text.strip():
            raise InvalidInputError(f"Message {message.id or index} has empty text.")
        messages.append(message if message.id else message.model_copy(update={"id": f"m{index}"}))
    first = messages[0]
    default_name = f"conversation {first.id}..{messages[-1].id}"
    return SourceItem(
        kind="conversation",
        name=name or conv.title or default_name,
        messages=messages,
        metadata=check_metadata(conv.metadata, what="Conversation.metadata"),
        created_at=first.timestamp,
        source_id=conv.source_id,
    )


def _from_path(path: Path) -> Iterable[SourceItem]:
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix.lower() in SUPPORTED_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
        if not files:
            raise InvalidInputError(
                f"Folder {path} holds no supported files ({', '.join(SUPPORTED_SUFFIXES)})."
            )
        for file in files:
            yield from _from_file(file)
    elif path.exists():
        yield from _from_file(path)
    else:
        raise InvalidInputError(f"File {path} does not exist; check the path.")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"File {path} is not UTF-8 text ({exc.reason}).") from exc
    except OSError as exc:
        raise InvalidInputError(f"File {path} cannot be read: {exc.strerror or exc}.") from exc


def _from_file(path: Path) -> Iterable[SourceItem]:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnsupportedFileTypeError(
            f"File {path.name} has an unsupported type {suffix or '(none)'!r}; remember() reads "
            f"{', '.join(SUPPORTED_SUFFIXES)}."
        )
    text = _read_text(path)
    source_id = str(path.resolve())
    if suffix in (".txt", ".md", ".markdown"):
        if not text.strip():
            raise InvalidInputError(f"File {path} is empty.")
        doc = Document(text=text, title=path.name, source_id=source_id)
        item = _from_document(doc, kind="file")
        item.metadata = {"source_path": str(path), **item.metadata}
        yield item
        return
    try:
        if suffix == ".json":
            values = [json.loads(text)]
        else:
            values = [json.loads(line) for line in text.splitlines() if line.strip()]
            if values and all(_is_message(v) for v in values):
                values = [{"messages": values}]
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"File {path} is not valid JSON: {exc}.") from exc
    if not values:
        raise InvalidInputError(f"File {path} is empty.")
    for value in values:
        for item in _from_json_value(value, origin=str(path), title=path.name):
            item.source_id = item.source_id or source_id
            item.metadata = {"source_path": str(path), **item.metadata}
            yield item


def _is_message(value: object) -> bool:
    return isinstance(value, dict) and "text" in value and ("speaker" in value or "id" in value)


def _from_json_value(value: Any, *, origin: str, title: str | None = None) -> Iterable[SourceItem]:
    try:
        if isinstance(value, list) and value and all(_is_message(v) for v in value):
            yield _from_conversation(Conversation(messages=value, title=title))
        elif isinstance(value, list):
            for element in value:
                yield from _from_json_value(element, origin=origin, title=None)
        elif isinstance(value, dict) and "messages" in value:
            yield _from_conversation(Conversation.model_validate({"title": title, **value}))
        elif isinstance(value, dict) and "text" in value:
            yield _from_document(Document.model_validate({"title": title, **value}), kind="file")
        else:
            raise InvalidInputError(
                f"{origin}: expected an object with 'text' (a document) or 'messages' (a "
                "conversation), or a list of them."
            )
    except ValidationError as exc:
        raise InvalidInputError(f"{origin}: {_describe(exc)}") from exc


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid value')}" if where else str(first.get("msg"))
