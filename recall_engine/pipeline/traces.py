"""The trace source of recall(): a session's traced calls ranked against the query,
the ``scope`` sources (session entries and traces) and the session block of a prompt.

Offline and with an LLM alike, a trace is searched like a session entry: by the
query's content words (stemmed, as in the extractive answers) and by meaning
(the engine's embedder on the call's one-line text). The two scores are averaged
with equal weight, so a call that shares no word with "what failed?" is still
found by meaning, and ties go to the newer call. A call's LLM summary, when it
has one (``trace(summarize=True)``), is searched as part of its text. Vectors
are kept per trace (and per summary) in a bounded cache, so each is embedded
once per process.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

import numpy as np

from recall_engine.core.models import ResponseSessionContextEntry, ResponseTraceEntry
from recall_engine.core.terms import terms
from recall_engine.embedding import Embedder
from recall_engine.embedding.common import check_vectors
from recall_engine.pipeline.session import HISTORY_TURNS, SessionHistory, cache_hits
from recall_engine.pipeline.state import EngineServices, RecallState
from recall_engine.sessions.traces import TraceRecord

SEARCHED = 500
"""The newest traces of a session a search reads (each session keeps more)."""
PROMPT_TRACES = 5
"""Traces shown to the LLM with the session history."""
_CACHE_SIZE = 20_000


class TraceVectors:
    """trace -> unit vector of its searched text, least recently used out first; a
    summary written later makes a new key, so it is never searched stale."""

    def __init__(self, embedder: Embedder, size: int = _CACHE_SIZE) -> None:
        self.embedder, self.size = embedder, size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, records: Sequence[TraceRecord]) -> np.ndarray:
        with self._lock:
            missing = [r for r in records if _key(r) not in self._vectors]
        if missing:
            vectors = check_vectors(
                self.embedder.embed([r.searched_text() for r in missing]),
                rows=len(missing),
                dimension=self.embedder.dimension,
                model_id=self.embedder.model_id,
            )
            with self._lock:
                for record, vector in zip(missing, vectors, strict=True):
                    self._vectors[_key(record)] = vector
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
        with self._lock:
            rows = [self._vectors.get(_key(r)) for r in records]
        if any(row is None for row in rows):  # evicted meanwhile by a concurrent search
            return self.embedder.embed([r.searched_text() for r in records])
        return np.stack([row for row in rows if row is not None])


def _key(record: TraceRecord) -> str:
    return record.trace_id if record.summary is None else f"{record.trace_id}+summary"


def rank_traces(
    query: str,
    query_vector: np.ndarray,
    records: Sequence[TraceRecord],
    vectors: TraceVectors,
    *,
    top_k: int,
) -> list[ResponseTraceEntry]:
    """The session's traces best first, at most ``top_k``, each with its score."""
    recent = list(records)[-SEARCHED:]
    if not recent:
        return []
    wanted = set(terms(query))
    dense = vectors.of(recent) @ np.asarray(query_vector, dtype=np.float32)
    scored = []
    for order, (record, similarity) in enumerate(zip(recent, dense, strict=True)):
        words = set(terms(record.searched_text()))
        lexical = len(wanted & words) / len(wanted) if wanted else 0.0
        score = 0.5 * lexical + 0.5 * max(0.0, float(similarity))
        scored.append((score, order, record))
    scored.sort(key=lambda t: (-t[0], -t[1]))
    return [record.entry(round(score, 4)) for score, _, record in scored[:top_k]]


def prompt_block(entries: Sequence[ResponseTraceEntry]) -> str:
    """Traces as the completion prompt shows them, beside the session history."""
    lines = [
        f"- {e.time:%Y-%m-%d %H:%M:%S} {e.text}" + (f" (summary: {e.summary})" if e.summary else "")
        for e in entries[:PROMPT_TRACES]
    ]
    return "Recorded tool calls of this session:\n" + "\n".join(lines) if lines else ""


def session_block(
    session: SessionHistory | None, traces: Sequence[ResponseTraceEntry]
) -> ResponseSessionContextEntry | None:
    """The session history and the best traces, as the answer's prompt gets them."""
    if session is None:
        return None
    history = session.prompt_history()
    shown = prompt_block(traces)
    text = "\n\n".join(part for part in (history, shown) if part)
    if not text:
        return None
    used = session.entries[-HISTORY_TURNS:] if history else ()
    return ResponseSessionContextEntry(
        text=text,
        session_id=session.session_id,
        qa_ids=[e.qa_id for e in used],
        trace_ids=[t.trace_id for t in traces[:PROMPT_TRACES]],
    )


async def scoped_sources(
    state: RecallState,
    services: EngineServices,
    vectors: TraceVectors,
    embed_query: Callable[[str], Awaitable[np.ndarray]],
) -> None:
    """An explicit ``scope``: the session's matching entries and its traces, in the
    order asked, into ``state.side``; without "graph" in it, nothing else runs."""
    request, session = state.request, state.session
    assert request.scope is not None and request.session_id is not None
    assert state.user is not None and session is not None
    for source in request.scope:
        if source == "session":
            state.side.extend(cache_hits(session, request.query_text, top_k=request.top_k))
        elif source == "trace":
            records = await asyncio.to_thread(
                _trace_records, services, state.tenant_id, state.user.id, request.session_id
            )
            if records:
                vector = await embed_query(request.query_text)
                state.traces = await asyncio.to_thread(
                    rank_traces, request.query_text, vector, records, vectors, top_k=request.top_k
                )
                state.side.extend(state.traces)
    if "graph" not in request.scope:
        state.done = True


def _trace_records(
    services: EngineServices, tenant_id: str, user_id: str, session_id: str
) -> list[TraceRecord]:
    """The session's traces, once the summaries asked for in it are written."""
    services.trace_summaries.settle(tenant_id, user_id, session_id)
    return services.traces.entries(tenant_id, user_id, session_id)
