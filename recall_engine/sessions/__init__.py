"""Session caches (question/context/answer entries per user and session) and feedback."""

from recall_engine.sessions.matching import matching_entries, question_key, same_question
from recall_engine.sessions.store import QARecord, SessionStore, format_history

__all__ = [
    "QARecord",
    "SessionStore",
    "format_history",
    "matching_entries",
    "question_key",
    "same_question",
]
