"""The reads the extra MCP tools need that the engine has no one method for: a data
item with its chunks, entity and fact search, a session's history. Each composes
the engine's public parts (``store()``, ``datasets()``, ``embedder``, ``sessions``)
with the read API, inside the datasets the default user may read."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import cast

from recall_engine.core.errors import DatasetNotFoundError, InvalidInputError
from recall_engine.core.hits import EntityHit, TripletHit
from recall_engine.core.limits import check_query_size
from recall_engine.core.recall_checks import check_session_id, moment
from recall_engine.core.validation import check_name
from recall_engine.engine import RecallEngine
from recall_engine.mcp.models import (
    ChunkInfo,
    EntityInfo,
    FactInfo,
    ItemDetail,
    ItemInfo,
    SessionEntry,
)
from recall_engine.read.store_reader import StoreReader

MAX_TOP_K = 100


async def _reader(
    engine: RecallEngine, tenant: str | None, datasets: Sequence[str] | None
) -> StoreReader:
    """A read API over the readable datasets (all, or the named ones).

    Raises:
        RecallPreconditionError: nothing has been remembered in the tenant.
        DatasetNotFoundError: a named dataset the user cannot read.
    """
    store = await asyncio.to_thread(engine.store, tenant)
    readable = {d.name: d.id for d in await engine.datasets(tenant_id=tenant)}
    if datasets is None:
        return StoreReader(store, tuple(readable.values()))
    names = [check_name(n, what="datasets") for n in datasets]
    unknown = [n for n in names if n not in readable]
    if unknown:
        raise DatasetNotFoundError(
            f"datasets: unknown dataset(s) {unknown}; list them with list_datasets."
        )
    return StoreReader(store, tuple(readable[n] for n in names))


def _top_k(top_k: int) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInputError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}.")
    return top_k


def _query(engine: RecallEngine, query: str) -> str:
    """``query`` stripped, if it is one that recall() would take.

    Raises:
        InvalidInputError: not a string, or empty.
        InputTooLargeError: longer than ``config.max_query_chars``.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string.")
    check_query_size(query, limit=engine.config.max_query_chars, what="query")
    return query.strip()


def _time(value: str | None, what: str) -> datetime | None:
    """An ISO 8601 text as recall()'s ``as_of`` reads it: naive UTC.

    Raises:
        InvalidInputError: not an ISO 8601 date or time (the message names ``what``).
    """
    return None if value is None else cast(datetime, moment(what)(value))


async def get_item(engine: RecallEngine, tenant: str | None, data_id: str) -> ItemDetail:
    """One data item with its chunks (text, message ids, metadata) in order.

    Raises:
        InvalidInputError: an unknown ``data_id``.
    """
    rows = {row["data_id"]: row for row in await engine.list_items(tenant_id=tenant)}
    if data_id not in rows:
        raise InvalidInputError(
            f"data_id: unknown data id {data_id!r}; list the ids with list_items."
        )
    store = await asyncio.to_thread(engine.store, tenant)
    chunks = await asyncio.to_thread(store.index.of_data, data_id)
    info = ItemInfo.model_validate({**rows[data_id], "created_at": created_text(rows[data_id])})
    return ItemDetail(
        **info.model_dump(),
        dataset_id=chunks[0].dataset_id if chunks else "",
        chunks=[
            ChunkInfo(
                chunk_id=c.id,
                chunk_index=c.chunk_index,
                text=c.text,
                message_ids=list(c.message_ids),
                metadata=dict(c.metadata),
            )
            for c in chunks
        ],
    )


def created_text(row: Mapping[str, object]) -> str | None:
    value = row.get("created_at")
    return None if value is None else str(value)


async def search_entities(
    engine: RecallEngine,
    tenant: str | None,
    query: str,
    *,
    datasets: Sequence[str] | None,
    top_k: int,
) -> list[EntityInfo]:
    """Entities named ``query`` first (any alias), then the nearest by meaning."""
    query, top_k = _query(engine, query), _top_k(top_k)
    reader = await _reader(engine, tenant, datasets)
    named = await reader.entities_by_name([query])
    vector = (await asyncio.to_thread(engine.embedder.embed, [query]))[0]
    near = await reader.nearest_entities(vector, top_k)
    hits: dict[str, EntityHit] = {}
    for hit in [*named, *near]:
        hits.setdefault(hit.id, hit)
    return [
        EntityInfo(
            id=h.id,
            name=h.name,
            type=h.type,
            dataset_name=h.dataset_name,
            score=h.score,
            sources=list(h.sources),
        )
        for h in list(hits.values())[:top_k]
    ]


async def search_facts(
    engine: RecallEngine,
    tenant: str | None,
    query: str,
    *,
    datasets: Sequence[str] | None,
    top_k: int,
    start: str | None,
    end: str | None,
) -> list[FactInfo]:
    """Relations nearest to ``query`` by meaning; with ``start``/``end`` (ISO 8601, an
    offset read as UTC) only those whose own time (a date their sentence names) falls
    inside the window: facts without one are left out.

    Raises:
        InvalidInputError: an empty query, a bad time, or ``start`` after ``end``.
        InputTooLargeError: a query over ``config.max_query_chars``.
    """
    query, top_k = _query(engine, query), _top_k(top_k)
    since, until = _time(start, "start"), _time(end, "end")
    if since is not None and until is not None and since > until:
        raise InvalidInputError(f"start ({since.isoformat()}) is after end ({until.isoformat()}).")
    reader = await _reader(engine, tenant, datasets)
    vector = (await asyncio.to_thread(engine.embedder.embed, [query]))[0]
    windowed = since is not None or until is not None
    hits = await reader.nearest_triplets(vector, top_k * 10 if windowed else top_k)
    if windowed:
        hits = [h for h in hits if _within(h, since, until)]
    return [_fact(h) for h in hits[:top_k]]


def _within(hit: TripletHit, start: datetime | None, end: datetime | None) -> bool:
    """Whether ``hit``'s own time lies in [start, end] (naive UTC bounds)."""
    if hit.timestamp is None:
        return False
    at = cast(datetime, moment("time")(hit.timestamp))
    if start is not None and at < start:
        return False
    return not (end is not None and at > end)


def _fact(hit: TripletHit) -> FactInfo:
    return FactInfo(
        id=hit.id,
        source=hit.source.name,
        predicate=hit.predicate,
        target=hit.target.name,
        context=hit.context,
        time=hit.timestamp,
        confidence=hit.confidence,
        score=hit.score,
        dataset_name=hit.dataset_name,
        sources=list(hit.sources),
    )


async def session_history(
    engine: RecallEngine, tenant: str | None, session_id: str
) -> list[SessionEntry]:
    """The default user's live entries of a session, oldest first ([] when unknown);
    ``session_id`` is checked and stripped as recall() does, so the id a recall was
    given finds its entries."""
    checked = check_session_id(session_id)
    if checked is None:
        raise InvalidInputError("session_id must be a non-empty string.")
    name = engine.tenant_name(tenant)
    user = await asyncio.to_thread(engine.identity.resolve_user, name, None)
    records = await asyncio.to_thread(engine.sessions.entries, name, user.id, checked)
    return [SessionEntry.of(r.entry()) for r in records]
