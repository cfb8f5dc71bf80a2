"""The session stages: read the caller's session (cache hits, history), write QA entries.

A session entry remembers the datasets its context came from; an entry is only
shown (as a cache hit or as history) while the caller can still read all of
them, so a revoked grant also hides what a session kept from that dataset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from recall_engine.core.hits import AnyHit, ChunkHit, RowHit
from recall_engine.core.models import ResponseGraphEntry, ResponseQAEntry
from recall_engine.sessions import QARecord, SessionStore, format_history, matching_entries

HISTORY_TURNS = 5
ANSWER_MODES = ("llm", "extractive")


@dataclass(frozen=True)
class SessionHistory:
    """The caller's live, readable session entries (implements ``SessionView``)."""

    session_id: str
    entries: tuple[QARecord, ...]

    def history(self, turns: int = HISTORY_TURNS) -> Sequence[tuple[str, str]]:
        """The most recent (question, answer) pairs, oldest first."""
        recent = self.entries[-turns:] if turns > 0 else ()
        return [(e.question, e.answer) for e in recent]

    def prompt_history(self, turns: int = HISTORY_TURNS) -> str | None:
        """The history as the completion prompt shows it (None when empty)."""
        return format_history(self.history(turns)) or None


def load_session(
    sessions: SessionStore,
    tenant_id: str,
    user_id: str,
    session_id: str,
    readable: Mapping[str, object],
) -> SessionHistory:
    """The session's live entries whose datasets the caller can all still read."""
    entries = sessions.entries(tenant_id, user_id, session_id)
    visible = tuple(e for e in entries if all(d in readable for d in e.dataset_ids))
    return SessionHistory(session_id, visible)


def cache_hits(session: SessionHistory, query: str, *, top_k: int) -> list[ResponseQAEntry]:
    """Session entries that answered this same question (or a light rewording of it),
    newest first; see ``recall_engine.sessions.matching``."""
    return [record.entry() for record in matching_entries(query, session.entries, top_k=top_k)]


def element_ids(hits: Iterable[AnyHit]) -> list[str]:
    """The graph elements and chunks hits rest on, as ``kind:id`` keys (the keys that
    feedback is tallied under)."""
    out: dict[str, None] = {}
    for hit in hits:
        own = hit_element(hit)
        if own is not None:
            out[own] = None
        for ref in hit.sources:
            out[f"chunk:{ref.chunk_id}"] = None
    return list(out)


def hit_element(hit: AnyHit) -> str | None:
    """The ``kind:id`` key of the element a hit is (None for Cypher rows)."""
    if isinstance(hit, ChunkHit):
        return f"chunk:{hit.chunk_id}"
    if isinstance(hit, RowHit):
        return None
    return f"{hit.kind}:{hit.id}"


def hit_datasets(hits: Iterable[AnyHit]) -> list[str]:
    out: dict[str, None] = {}
    for hit in hits:
        if hit.dataset_id:
            out[hit.dataset_id] = None
        for ref in hit.sources:
            out[ref.dataset_id] = None
    return list(out)


def answered(results: Sequence[object]) -> ResponseGraphEntry | None:
    """The one generated (LLM or extractive) answer among results, if that is what
    they are; context-only and item results are never written to a session."""
    if len(results) != 1 or not isinstance(results[0], ResponseGraphEntry):
        return None
    entry = results[0]
    return entry if entry.metadata.get("answer_mode") in ANSWER_MODES else None
