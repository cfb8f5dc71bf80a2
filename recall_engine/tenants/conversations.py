"""Conversation-turn sources kept as conversations: the turns of one sub-tenant's
collection that share a conversation key are stored as one ``Conversation`` (one
data item, the turns in order, speaker and time kept), so that recall reads them as
it reads a remembered conversation (neighbouring turns, replies, one summary).

Each turn keeps its own source record and metadata (``TURNS_KEY``), so results,
listings and filters still see one source per turn. Writing a turn (upload, upsert,
delete) stores the conversation again under its own source id: the ingest replaces
the stored one in the same commit, so a failure leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from recall_engine.core.hits import ChunkHit
from recall_engine.core.metadata import SOURCE_KEY, TURNS_KEY
from recall_engine.core.models import Conversation, Message
from recall_engine.core.results import source_of

KEY_FIELDS = ("conversation_id", "thread_id", "session_id")
"""Metadata fields of a turn source that name its conversation; a turn without one
belongs to its sub-tenant's default conversation."""
GROUP_PREFIX = "conversation:"
"""The source id of a stored conversation is this prefix plus its key."""


@dataclass
class Turn:
    """One conversation-turn source: its message and its own chunk metadata."""

    source_id: str
    key: str
    message: Message
    metadata: dict[str, object] = field(default_factory=dict)


def conversation_key(fields: Sequence[dict[str, object] | None]) -> str:
    """The conversation a turn belongs to: the first ``KEY_FIELDS`` value found in
    ``fields`` (the source's metadata objects), else ``""`` (the default one)."""
    for found in fields:
        for name in KEY_FIELDS:
            value = (found or {}).get(name)
            if isinstance(value, str | int) and str(value).strip():
                return str(value).strip()
    return ""


def group_source_id(key: str) -> str:
    """The source id the conversation of ``key`` is stored under."""
    return GROUP_PREFIX + key


def is_group(source_id: str | None) -> bool:
    """Whether a stored item's source id is that of a grouped conversation."""
    return bool(source_id) and str(source_id).startswith(GROUP_PREFIX)


def stored_turns(chunks: Sequence[ChunkHit]) -> list[Turn]:
    """The turns of a stored conversation, in order, from its chunks (a turn cut in
    pieces is one turn; its text is kept in its source record)."""
    turns: dict[str, Turn] = {}
    for hit in chunks:
        source = source_of(hit.metadata)
        source_id = str(source.get("source_id") or "")
        if not source_id or source_id in turns:
            continue
        message = Message(
            id=source_id,
            speaker=hit.speaker,
            text=str(source.get("text") or hit.text),
            timestamp=datetime.fromisoformat(hit.timestamp) if hit.timestamp else None,
        )
        key = str(source.get("conversation") or "")
        turns[source_id] = Turn(source_id, key, message, dict(hit.metadata))
    return list(turns.values())


def merged(stored: Sequence[Turn], new: Sequence[Turn], removed: set[str]) -> list[Turn]:
    """A conversation's turns after a write: the stored ones less ``removed``, each
    replaced in place by a new turn of the same id, then the other new turns; in time
    order when every turn has a time (ties keep that order)."""
    fresh = {t.source_id: t for t in new}
    out = [fresh.pop(t.source_id, t) for t in stored if t.source_id not in removed]
    out.extend(fresh.values())
    times = [t.message.timestamp for t in out]
    if all(times) and len({w.tzinfo is None for w in times if w}) <= 1:
        out.sort(key=lambda t: t.message.timestamp or datetime.min)
    return out


def as_conversation(key: str, turns: Sequence[Turn]) -> Conversation:
    """The conversation of ``key`` to remember: its turns as messages, each turn's
    metadata under ``TURNS_KEY``."""
    source_id = group_source_id(key)
    return Conversation(
        messages=[t.message for t in turns],
        metadata={
            SOURCE_KEY: {"source_id": source_id, "type": "conversation"},
            TURNS_KEY: {t.source_id: t.metadata for t in turns},
        },
        source_id=source_id,
    )
