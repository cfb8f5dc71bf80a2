"""Turn HydraDB memories and knowledge sources into the engine's documents and
conversations, with the source's fields and metadata on every chunk."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from recall_engine.core.hydra import ForcefulRelations, KnowledgeSource, MemoryItem
from recall_engine.core.metadata import ADDITIONAL_KEY, EXPIRES_KEY, SOURCE_KEY, TENANT_KEY
from recall_engine.core.models import Conversation, Document, Message
from recall_engine.core.validation import check_metadata, check_text
from recall_engine.tenants.conversations import Turn, conversation_key

CONVERSATION = "conversation"
"""A knowledge source of this ``type`` is one turn of a conversation: it is stored
with the other turns of its conversation as one ``Conversation``, its speaker and
time kept (``tenants.conversations``)."""
SPEAKER_KEYS = ("speaker", "role", "author", "user_name")


@dataclass
class Prepared:
    """One source ready to remember, or the reason it cannot be."""

    source_id: str
    title: str | None
    data: Document | Conversation | None = None
    error: str | None = None
    filename: str | None = None
    turn: Turn | None = None
    """A conversation turn, stored with the other turns of its conversation."""
    is_turn: bool = False
    """A conversation turn, grouped (``turn``) or stored alone (it expires)."""


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def _metadata(
    *,
    source: dict[str, object],
    tenant_metadata: dict[str, object] | None,
    additional: dict[str, object] | None,
    expiry_time: int | None,
) -> dict[str, object]:
    metadata: dict[str, object] = {
        SOURCE_KEY: {k: v for k, v in source.items() if v is not None},
        TENANT_KEY: check_metadata(tenant_metadata, what="tenant_metadata"),
        ADDITIONAL_KEY: check_metadata(additional, what="additional_metadata"),
    }
    if expiry_time is not None and expiry_time > 0:
        metadata[EXPIRES_KEY] = time.time() + expiry_time
    return metadata


def _relations(relations: ForcefulRelations | None) -> list[str]:
    return list(relations.cortex_source_ids) if relations is not None else []


def prepare_memory(item: MemoryItem) -> Prepared:
    """A memory as a document (text, markdown) or a conversation (user/assistant pairs)."""
    source_id = item.source_id or uuid.uuid4().hex
    first = item.text or (item.user_assistant_pairs[0].user if item.user_assistant_pairs else "")
    title = item.title or " ".join(first.split()[:8]) or source_id
    pairs = item.user_assistant_pairs or []
    try:
        for text in (item.text or "", *(t for p in pairs for t in (p.user, p.assistant))):
            check_text(text, what="the memory's text")
        metadata = _metadata(
            source={
                "source_id": source_id,
                "title": title,
                "type": "memory",
                "timestamp": _iso(item.timestamp),
                "uploaded_at": datetime.now(UTC).isoformat(),
                "relations": _relations(item.relations),
                "user_name": item.user_name,
            },
            tenant_metadata=item.tenant_metadata,
            additional={**(item.document_metadata or {}), **(item.additional_metadata or {})},
            expiry_time=item.expiry_time,
        )
    except ValueError as exc:
        return Prepared(source_id, title, error=str(exc))
    if item.user_assistant_pairs:
        messages: list[Message] = []
        if item.text and item.text.strip():
            messages.append(Message(id=f"{source_id}:note", speaker="note", text=item.text))
        for n, pair in enumerate(item.user_assistant_pairs):
            for role, text in (
                (item.user_name or "user", pair.user),
                ("assistant", pair.assistant),
            ):
                if text.strip():
                    messages.append(
                        Message(
                            id=f"{source_id}:{n}:{role}",
                            speaker=role,
                            text=text,
                            timestamp=item.timestamp,
                        )
                    )
        if not messages:
            return Prepared(source_id, title, error="the memory's user_assistant_pairs are empty")
        data: Document | Conversation = Conversation(
            messages=messages, title=title, metadata=metadata, source_id=source_id
        )
    elif item.text and item.text.strip():
        data = Document(
            text=item.text,
            title=title,
            metadata=metadata,
            created_at=item.timestamp,
            source_id=source_id,
        )
    else:
        return Prepared(source_id, title, error="a memory needs text or user_assistant_pairs")
    return Prepared(source_id, title, data=data)


def prepare_source(source: KnowledgeSource, *, filename: str | None = None) -> Prepared:
    """A knowledge source (an app source or an uploaded file's text) as a document; a
    source of type ``conversation`` as a turn of its conversation (``_speaker``,
    ``tenants.conversations``)."""
    source_id = source.id or source.source_id or uuid.uuid4().hex
    title = source.title or filename
    text = source.text
    if text is None and source.content is not None:
        text = source.content.text or source.content.markdown
    if text is None or not text.strip():
        return Prepared(source_id, title, error="the source has no text content", filename=filename)
    is_turn = (source.type or "").strip().lower() == CONVERSATION
    try:
        check_text(text, what="the source's text")
        metadata = _metadata(
            source={
                "source_id": source_id,
                "title": title,
                "type": source.type or ("file" if filename else "document"),
                "description": source.description,
                "url": source.url,
                "timestamp": _iso(source.timestamp),
                "uploaded_at": datetime.now(UTC).isoformat(),
                "relations": _relations(source.relations),
            },
            tenant_metadata=source.tenant_metadata,
            additional=_own_fields(source, turn=is_turn),
            expiry_time=source.expiry_time,
        )
    except ValueError as exc:
        return Prepared(source_id, title, error=str(exc), filename=filename)
    if is_turn:
        key = conversation_key(
            [source.metadata, source.additional_metadata, source.document_metadata]
        )
        record = metadata[SOURCE_KEY]
        assert isinstance(record, dict)
        record.update(text=text, conversation=key)  # to store the conversation again
        turn = Message(
            id=source_id, speaker=_speaker(source), text=text, timestamp=source.timestamp
        )
        if EXPIRES_KEY in metadata:
            # Alone: expiry forgets a whole data item, the other turns with it.
            alone = Conversation(messages=[turn], metadata=metadata, source_id=source_id)
            return Prepared(source_id, title, data=alone, filename=filename, is_turn=True)
        return Prepared(
            source_id,
            title,
            turn=Turn(source_id, key, turn, metadata),
            filename=filename,
            is_turn=True,
        )
    document = Document(
        text=text, title=title, metadata=metadata, created_at=source.timestamp, source_id=source_id
    )
    return Prepared(source_id, title, data=document, filename=filename)


def _own_fields(source: KnowledgeSource, *, turn: bool) -> dict[str, object]:
    """The source's metadata fields, less a turn's ``speaker`` (the turn keeps it as
    its speaker, a provenance field)."""
    fields = {
        **(source.metadata or {}),
        **(source.document_metadata or {}),
        **(source.additional_metadata or {}),
    }
    if turn:
        fields.pop("speaker", None)
    return fields


def _speaker(source: KnowledgeSource) -> str | None:
    """Who said a conversation turn: a ``speaker`` (or ``role``, ``author``,
    ``user_name``) field of the source's metadata, else its title."""
    for fields in (source.metadata, source.additional_metadata, source.document_metadata):
        for key in SPEAKER_KEYS:
            value = (fields or {}).get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    return source.title.strip() if source.title and source.title.strip() else None
