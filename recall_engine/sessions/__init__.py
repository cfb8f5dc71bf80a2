"""Session caches (question/context/answer entries per user and session) and feedback."""

from recall_engine.sessions.search import search_entries
from recall_engine.sessions.store import QARecord, SessionStore, format_history

__all__ = ["QARecord", "SessionStore", "format_history", "search_entries"]
