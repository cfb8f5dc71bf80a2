"""The session stages: read the caller's session (cache hits, history), write QA entries.

A session entry remembers the datasets its context came from and the chunks it
rests on; an entry is only shown (as a cache hit or as history) while the caller
can still read all of those datasets and every one of those chunks is still stored,
so a revoked grant, ``forget()``, a new version of a document and expiry also hide
what a session kept from them. A load reads the ``MAX_SESSION_ENTRIES`` most recent
entries only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from recall_engine.core.hits import AnyHit, ChunkHit, RowHit
from recall_engine.core.models import ResponseGraphEntry, ResponseQAEntry
from recall_engine.sessions import QARecord, SessionStore, format_history, matching_entries

HISTORY_TURNS = 5
ANSWER_MODES = ("llm", "extractive")
MAX_SESSION_ENTRIES = 200
"""Entries one load reads, the most recent: a cache hit is a recent question asked
again and the history shows the last ``HISTORY_TURNS``, so a long session costs
every recall no more than this."""


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
    *,
    alive: Callable[[str], bool] | None = None,
) -> SessionHistory:
    """The session's live entries (the ``MAX_SESSION_ENTRIES`` most recent) whose
    datasets the caller can all still read and whose chunks are all still stored.

    Args:
        readable: the dataset ids the caller can read.
        alive: whether a chunk id is still stored (the tenant store's chunk index);
            None (a recall without a store) checks no chunk.
    """
    entries = sessions.entries(tenant_id, user_id, session_id, last=MAX_SESSION_ENTRIES)
    visible = tuple(
        e
        for e in entries
        if all(d in readable for d in e.dataset_ids) and (alive is None or _rests_on(e, alive))
    )
    return SessionHistory(session_id, visible)


def _rests_on(entry: QARecord, alive: Callable[[str], bool]) -> bool:
    """Every chunk the entry's context was built from is still stored (a forgotten,
    replaced or expired one takes the answer with it)."""
    return all(alive(key[6:]) for key in entry.element_ids if key.startswith("chunk:"))


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
