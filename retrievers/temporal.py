"""TEMPORAL: passages fused with what the store dates, for questions about time.

The reference time that relative phrases ("last March", "in the last 12 months",
"two weeks ago") resolve against is ``reference_time`` when the config gives
one; else now, or the latest message time of the conversations in scope when
that is earlier (a conversation's "last month" is the month before its latest
message, not before today).

1. The query names a time (``recall_engine.read.time_query``: years, ranges, months,
   dates, relative phrases against the reference time): the chunks dated inside the
   interval and the chunks stating events resolved inside it, each ranked by
   the query vector, are fused with the passage lane (dense + BM25). When the
   store dates nothing in the interval the result is the passage lane alone, so
   it is never worse than hybrid's passages there.
2. The query asks for a time but names none ("When did Ann move?"): the events
   nearest the query lend their chunks weight (an answer to "when" is a dated
   happening), fused with the passage lane the same way.
3. Otherwise: GRAPH_COMPLETION runs instead; ``details["fallback"]`` and the
   results' ``search_type`` say so.

Every result carries ``metadata["temporal"]``: the interval used (or ``"none"``),
the phrase it came from, the reference time and where it came from, and what ran
(``"TEMPORAL"``, or the fallback and why).

Hits are one list whose order does not depend on ``top_k`` (``retrievers.layout``):
the best ``passages_ahead`` chunks, then the remaining chunks alternating with
``events_k`` events they rest on (in the interval or nearest the query), scored by position
like HYBRID_COMPLETION's; every candidate list is ``depth`` deep (a larger
``top_k`` only appends what deeper lists add).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import ClassVar

from pydantic import Field

from recall_engine.core.hits import ChunkHit, EventHit
from recall_engine.core.search_types import SearchType
from recall_engine.read.time_query import Interval, asks_for_time, query_interval
from retrievers.base import (
    RetrievalContext,
    RetrieverConfig,
    RetrieverOutput,
    config_of,
    with_config,
)
from retrievers.graph_completion import GraphCompletionConfig, GraphCompletionRetriever
from retrievers.hybrid_completion import timed
from retrievers.layout import PASSAGES_AHEAD, after_lead, extend_tail
from retrievers.passages import (
    PassageConfig,
    follow_titles,
    fuse,
    passage_lists,
    spread_to_neighbours,
)


class TemporalConfig(PassageConfig):
    time_weight: float = Field(
        default=1.0,
        ge=0.0,
        description="Weight of the in-interval lanes beside dense and BM25; 0 ranks "
        "by text alone (dates ignored).",
    )
    event_weight: float = Field(
        default=0.5,
        ge=0.0,
        description="Weight of the nearest events for 'when' questions; 0 ignores event dates.",
    )
    events_k: int = Field(
        default=5, ge=0, description="Events listed (whatever top_k is); 0 lists passages only."
    )
    passages_ahead: int = Field(
        default=PASSAGES_AHEAD, ge=0, description="Best passages listed before the events."
    )
    reference_time: datetime | None = Field(
        default=None,
        description="What relative phrases resolve against (naive UTC); None: now, or the "
        "latest message time of the conversations in scope when that is earlier.",
    )


class TemporalRetriever:
    """Chunks and events inside the query's time interval, fused with passages."""

    search_type: ClassVar[str] = SearchType.TEMPORAL
    kind: ClassVar[str] = "temporal"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = TemporalConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[TemporalConfig]) -> RetrieverOutput:
        options = config_of(ctx, TemporalConfig)
        reference, source = await _reference_time(ctx, options)
        interval = query_interval(query, reference)
        about = {
            "interval": interval.label() if interval else "none",
            "phrase": interval.phrase if interval else None,
            "reference_time": reference.isoformat(),
            "reference": source,
        }
        if interval is None and not asks_for_time(query):
            return await _fall_back(query, ctx, about)
        found = await _ranked(query, ctx, options, interval, depth=options.depth)
        if len(found.chunks) < ctx.top_k and ctx.top_k > options.depth:
            deeper = await _ranked(query, ctx, options, interval, depth=ctx.top_k)
            found.chunks = extend_tail(found.chunks, deeper.chunks, key=lambda h: h.chunk_id)
        listed = _unique_events(found.events)[: options.events_k]
        ordered = after_lead(found.chunks, listed, ahead=options.passages_ahead)[: ctx.top_k]
        chunks = found.chunks[: sum(isinstance(h, ChunkHit) for h in ordered)]
        listed = listed[: sum(isinstance(h, EventHit) for h in ordered)]
        ran = "interval" if interval else "nearest events (the query asks for a time, names none)"
        return RetrieverOutput(
            hits=[h.with_score(1.0 / (i + 1)) for i, h in enumerate(ordered)],
            context=_context(chunks, listed, interval),
            metadata={"temporal": {**about, "ran": SearchType.TEMPORAL.value, "mode": ran}},
            details={
                "interval": interval.label() if interval else None,
                "time_phrase": interval.phrase if interval else None,
                "mode": "interval" if interval else "asks_for_time",
                "lanes": found.lanes,
            },
        )


@dataclasses.dataclass
class _Ranked:
    """The chunks of one fusion, best first, the events it used, and its lane sizes."""

    chunks: list[ChunkHit]
    events: list[EventHit]
    lanes: dict[str, int]


async def _ranked(
    query: str,
    ctx: RetrievalContext[RetrieverConfig],
    options: TemporalConfig,
    interval: Interval | None,
    *,
    depth: int,
) -> _Ranked:
    """The passage lane (dense, BM25, titles) fused with the chunks dated in
    ``interval`` and those stating its events (or, without one, the events
    nearest the query), every list ``depth`` deep; neighbours and titles follow."""
    read, vector, timings = ctx.read, ctx.query_vector, ctx.timings
    if interval is not None:
        (dense, lexical, titled), dated, events = await asyncio.gather(
            timed(timings, "temporal.passages", passage_lists(read, vector, query, depth)),
            timed(
                timings,
                "temporal.dated_chunks",
                read.chunks_between(interval.start, interval.end, vector=vector, k=depth),
            ),
            timed(
                timings,
                "temporal.events",
                read.events_between(interval.start, interval.end, vector=vector, k=depth),
            ),
        )
        weight = options.time_weight
    else:
        (dense, lexical, titled), events = await asyncio.gather(
            timed(timings, "temporal.passages", passage_lists(read, vector, query, depth)),
            timed(timings, "temporal.events", read.nearest_events(vector, depth)),
        )
        dated, weight = [], options.event_weight
    event_chunks = await _event_chunks(ctx, events)
    hits = {h.chunk_id: h for h in (*dense, *lexical, *titled, *dated, *event_chunks)}
    lists = [dense, lexical, titled, dated, event_chunks]
    weights = [options.dense_weight, options.lexical_weight, options.title_weight, weight, weight]
    scores = fuse(lists, weights)
    scores = await follow_titles(read, scores, hits, options)
    scores = await spread_to_neighbours(read, scores, hits, options)
    best = sorted(scores, key=lambda c: (-scores[c], c))
    lanes = {
        "dense": len(dense),
        "lexical": len(lexical),
        "dated_chunks": len(dated),
        "events": len(events),
    }
    return _Ranked([hits[c] for c in best], events, lanes)


async def _event_chunks(
    ctx: RetrievalContext[RetrieverConfig], events: list[EventHit]
) -> list[ChunkHit]:
    """The chunks stating these events, in the events' order, each scored by its best event."""
    best: dict[str, float] = {}
    for event in events:
        if event.chunk_id and event.chunk_id not in best:
            best[event.chunk_id] = event.score
    found = await ctx.read.chunks_by_id(list(best))
    return [h.with_score(best[h.chunk_id]) for h in found if h.chunk_id in best]


def _unique_events(events: list[EventHit]) -> list[EventHit]:
    seen: set[str] = set()
    out = []
    for event in events:
        if event.text not in seen:
            seen.add(event.text)
            out.append(event)
    return out


async def _reference_time(
    ctx: RetrievalContext[RetrieverConfig], options: TemporalConfig
) -> tuple[datetime, str]:
    """The time relative phrases resolve against, and where it came from."""
    if options.reference_time is not None:
        given = options.reference_time
        if given.tzinfo is not None:
            given = given.astimezone(UTC).replace(tzinfo=None)
        return given, "given"
    latest = await ctx.read.latest_message_time()
    if latest is not None and latest < ctx.reference_time:
        return latest, "latest message"
    return ctx.reference_time, "now"


async def _fall_back(
    query: str, ctx: RetrievalContext[RetrieverConfig], about: Mapping[str, object]
) -> RetrieverOutput:
    """No time in the query: graph completion runs instead, and says so."""
    target = GraphCompletionRetriever.search_type
    inner = with_config(ctx, GraphCompletionConfig())
    output = await GraphCompletionRetriever().retrieve(query, inner)
    reason = f"no time found in the query; ran {target} instead"
    details = {**output.details, "fallback": reason}
    temporal = {**about, "ran": str(target), "mode": "fallback", "fallback": reason}
    return output.model_copy(
        update={
            "details": details,
            "metadata": {**output.metadata, "temporal": temporal},
            "search_type": output.search_type or target,
        }
    )


def _context(chunks: list[ChunkHit], events: list[EventHit], interval: Interval | None) -> str:
    head = f"Time asked about: {interval.phrase} {interval.label()}\n\n" if interval else ""
    sections = []
    if chunks:
        sections.append("Relevant passages:\n" + "\n".join(f"- {c.text}" for c in chunks))
    if events:
        lines = [f"- {e.time[:10] if e.time else 'undated'}: {e.text}" for e in events]
        sections.append("Events:\n" + "\n".join(lines))
    return head + "\n\n".join(sections)
