"""Public import path of ``recall_engine.core.models`` (kept for callers)."""

from recall_engine.core.models import (
    Conversation,
    Document,
    Message,
    RememberResult,
    ResponseGraphEntry,
    ResponseQAEntry,
    SourceRef,
    When,
)

__all__ = [
    "Conversation",
    "Document",
    "Message",
    "RememberResult",
    "ResponseGraphEntry",
    "ResponseQAEntry",
    "SourceRef",
    "When",
]
