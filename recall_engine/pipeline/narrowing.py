"""recall()'s ``metadata_filters`` and ``recency_bias``: checked once, then applied
to what the retrievers found.

``metadata_filters`` binds a ``ChunkFilter`` to the reader every stage reads
through, so each chunk search of every search type honours it; graph hits
(triplets, entities, summaries, events) are kept only when a chunk they rest on
passes it too. ``recency_bias`` re-ranks the hits by ``read.recency``: a hit's
time is its own (a message's or a document's timestamp, an event's or a
relation's time), else the time its first chunk was remembered.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import ChunkHit, EventHit, Hit, TripletHit
from recall_engine.core.results import source_time
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES, SearchTypeName
from recall_engine.core.validation import check_text
from recall_engine.read.attributes import AttributeFilter
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.recency import POOL, apply_recency
from recall_engine.read.store_reader import StoreReader
from recall_engine.storage.tenant import TenantStore
from retrievers import RetrieverOutput

MAX_METADATA_FILTERS = 32


def check_metadata_filters(value: object) -> ChunkFilter | None:
    """``metadata_filters`` as a filter; None or {} filters nothing.

    Either exact equalities ({key: value}, all required, on the metadata given to
    remember()), or a query with operators (``read.attributes``: ``{"level":
    {"$gte": 3}}``, ``{"$or": [...]}``, dotted keys reaching into nested metadata).

    Raises:
        InvalidInputError: not a dict, more than ``MAX_METADATA_FILTERS`` keys, a key
            that is not a non-empty string, a value that is not one JSON scalar
            (equalities), or a query ``AttributeFilter.parse`` refuses.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidInputError(
            f"metadata_filters must be a dict of metadata key: value, got {type(value).__name__}."
        )
    if len(value) > MAX_METADATA_FILTERS:
        raise InvalidInputError(
            f"metadata_filters holds {len(value)} keys; at most {MAX_METADATA_FILTERS} are allowed."
        )
    pairs: list[tuple[tuple[str, ...], object]] = []
    for key in value:
        if not isinstance(key, str) or not key.strip():
            raise InvalidInputError(
                f"metadata_filters keys must be non-empty strings, got {key!r}."
            )
        check_text(key, what="metadata_filters key")
    if _is_query(value):
        try:
            return ChunkFilter(attributes=AttributeFilter.parse(value))
        except InvalidInputError as exc:
            raise InvalidInputError(f"metadata_filters: {exc}") from None
    for key, wanted in value.items():
        if isinstance(wanted, Mapping | list | tuple | set) or not _scalar(wanted):
            raise InvalidInputError(
                f"metadata_filters {key!r}: pass one string, number, bool or None to match "
                f"exactly, got {type(wanted).__name__} (for a range or a list use an operator: "
                "{'$gte': 3}, {'$in': [...]})."
            )
        pairs.append(((key,), wanted))
    return ChunkFilter(equals=tuple(pairs)) if pairs else None


def _is_query(value: Mapping[str, object]) -> bool:
    """Whether a filter uses the query language: an operator, or a dotted key."""
    return any(
        key.startswith("$")
        or "." in key
        or (isinstance(wanted, Mapping) and any(str(k).startswith("$") for k in wanted))
        for key, wanted in value.items()
    )


def _scalar(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int | bool)


def check_applies(search_type: SearchTypeName, where: ChunkFilter | None) -> None:
    """A Cypher type's rows are the caller's own query: no filter can narrow them.

    Raises:
        InvalidInputError: ``metadata_filters`` with a Cypher search type.
    """
    if where is not None and search_type in CYPHER_SEARCH_TYPES:
        raise InvalidInputError(
            f"metadata_filters does not apply to {search_type}, whose rows are the "
            "query's own; filter in the query, or pick another search type."
        )


def retrieval_depth(top_k: int, recency_bias: float, *, answers: bool) -> int:
    """Hits to ask for: with recency on an item result, the whole relevant pool, so
    a newer relevant hit below ``top_k`` can move into the cut."""
    return max(top_k, POOL) if recency_bias > 0 and not answers else top_k


async def narrow_output(
    output: RetrieverOutput,
    read: StoreReader,
    store: TenantStore,
    *,
    where: ChunkFilter | None,
    bias: float,
    keep: int | None,
) -> None:
    """The retriever's hits narrowed in place: with ``where``, only those resting on
    matching items (a laid-out context that lost some falls back to the plain join of
    what is left); with ``bias``, re-ranked by recency and cut to ``keep`` (None: all)."""
    hits = list(output.hits)
    if where is not None and hits:
        hits = await narrow(hits, read)
        if len(hits) < len(output.hits):
            output.context = None
    if bias > 0 and hits:
        hits = by_recency(hits, bias, store)[:keep]
    output.hits = hits


async def narrow(hits: Sequence[Hit], read: StoreReader) -> list[Hit]:
    """Chunk hits as found (the reader honours the filter); another hit only when
    a chunk it rests on passes the filter (``read``'s)."""
    rests_on = {
        ref.chunk_id for hit in hits if not isinstance(hit, ChunkHit) for ref in hit.sources
    }
    allowed = {h.chunk_id for h in await read.chunks_by_id(sorted(rests_on))}
    return [
        hit
        for hit in hits
        if isinstance(hit, ChunkHit) or any(ref.chunk_id in allowed for ref in hit.sources)
    ]


def by_recency(hits: Sequence[Hit], bias: float, store: TenantStore) -> list[Hit]:
    """``hits`` re-ranked with ``bias`` of recency (``read.recency``)."""
    chunks = [c for c in map(_chunk_of, hits) if c is not None]
    remembered = {r.id: _epoch(r.created_at) for r in store.index.by_id(dict.fromkeys(chunks))}

    def time_of(hit: Hit) -> float | None:
        own = _own_time(hit)
        if own is not None:
            return own
        chunk_id = _chunk_of(hit)
        return None if chunk_id is None else remembered.get(chunk_id)

    ranked = apply_recency([(h, h.score) for h in hits], bias, time_of)
    return [hit.with_score(score) for hit, score in ranked]


def _chunk_of(hit: Hit) -> str | None:
    if isinstance(hit, ChunkHit):
        return hit.chunk_id
    return hit.sources[0].chunk_id if hit.sources else None


def _own_time(hit: Hit) -> float | None:
    if isinstance(hit, ChunkHit):
        own = _epoch(hit.timestamp)
        return own if own is not None else source_time(hit.metadata)
    if isinstance(hit, EventHit):
        return _epoch(hit.time)
    if isinstance(hit, TripletHit):
        return _epoch(hit.timestamp)
    return None


def _epoch(text: str | None) -> float | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()
