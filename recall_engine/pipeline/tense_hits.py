"""When a hit was stated and which chunks it rests on, for the tense stage.

A chunk or relation carries its message time, an event its own time; an entity or a
summary is as old as the chunks it rests on (``stated_at`` reads them from the store).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from recall_engine.core.facts import parse_utc
from recall_engine.core.hits import ChunkHit, EventHit, Hit, SummaryHit, TripletHit


class ChunkSource(Protocol):
    """The read ``stated_at`` needs (``read.api.ChunkReads``)."""

    async def chunks_by_id(
        self, chunk_ids: Sequence[str], *, neighbours: int = 0
    ) -> list[ChunkHit]: ...


def hit_time(hit: Hit) -> datetime | None:
    """When a hit was stated: a chunk's message time, a relation's or event's time.

    Args:
        hit: A retriever's hit.

    Returns:
        Its own time (naive UTC), or None when it has none or it does not parse.
    """
    text: str | None = None
    if isinstance(hit, (ChunkHit, TripletHit)):
        text = hit.timestamp
    elif isinstance(hit, EventHit):
        text = hit.time
    try:
        return parse_utc(text)
    except ValueError:
        return None


async def stated_at(hits: Sequence[Hit], read: ChunkSource) -> Callable[[Hit], datetime | None]:
    """When each of ``hits`` was stated: its own time (``hit_time``), else the time
    of the chunks it rests on, read from the store: a relation's chunk, an entity's
    first mention, the last of the chunks a summary restates.

    Args:
        hits: the retriever's hits.
        read: the scoped reads (``chunks_by_id``).

    Returns:
        Hit -> its time; None when it or one of its chunks has no time.
    """
    undated = [h for h in hits if hit_time(h) is None]
    wanted = list(dict.fromkeys(c for h in undated for c in chunks_of(h)))
    times = {c.chunk_id: hit_time(c) for c in await read.chunks_by_id(wanted)} if wanted else {}

    def time_of(hit: Hit) -> datetime | None:
        own = hit_time(hit)
        if own is not None:
            return own
        found = [times.get(c) for c in chunks_of(hit)]
        dated = [t for t in found if t is not None]
        if not dated or len(dated) < len(found):
            return None
        return max(dated) if isinstance(hit, SummaryHit) else min(dated)

    return time_of


def chunks_of(hit: Hit) -> list[str]:
    """The chunks a hit rests on: its own chunk, then its sources'."""
    own = [hit.chunk_id] if isinstance(hit, TripletHit) and hit.chunk_id else []
    return list(dict.fromkeys([*own, *(s.chunk_id for s in hit.sources)]))


def chunk_of(hit: Hit) -> str | None:
    """The one chunk a hit stands for: its own (a chunk's, a relation's), else its
    first source's; None when it has none."""
    if isinstance(hit, ChunkHit):
        return hit.chunk_id
    if isinstance(hit, TripletHit) and hit.chunk_id:
        return hit.chunk_id
    return hit.sources[0].chunk_id if hit.sources else None
