"""A collection's sources as the tenant API lists them, built from the stored items
(graph rows) and their chunks, and read only as far as a request needs: a page
reads the rows and chunks of its own items, a count reads none but the rows and
chunks of grouped conversations (whose turns are sources of their own); rows are
ordered, counted and cut in the store (``TenantReader.documents_page``,
``document_count``, ``documents_before``). A listing narrowed by ids or by a
filter reads the rows the store finds for them (``TenantReader.documents_matching``:
the items of those ids, those whose stored metadata holds the filter's values) and
the grouped conversations, and no item's chunks but the conversations'.

A source is one stored item, or one turn of a grouped conversation
(``tenants.conversations``): every other item's chunks carry the item's own
metadata, its one source record among them (``ingest.prepare.chunk_records``), so
its row alone says what the source is, whether a filter passes it and when it expires.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from recall_engine.core.hits import ChunkHit
from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.core.results import source_of
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.conversations import GROUP_PREFIX, is_group
from recall_engine.tenants.source_filter import SourceFilter

Entry = dict[str, Any]
"""One listed source: its fields, metadata and text (``TenantSources.list_sources``)."""


class Row(Protocol):
    """What a listing reads of a stored item (the graph's document record)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def source_id(self) -> str | None: ...
    @property
    def created_at(self) -> str: ...
    @property
    def metadata(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class Found:
    """An item found by one of its sources' ids (``data_ids_of_sources``): what its
    entry needs of its row, the item's name taken from its chunks."""

    id: str
    source_id: str
    name: str
    created_at: str = ""
    metadata: dict[str, object] = field(default_factory=dict)


def entries(rows: Iterable[Row], chunks: Sequence[ChunkHit], *, now: float) -> list[Entry]:
    """The sources of ``rows`` (in their order) from their chunks, the expired left out."""
    by_source: dict[tuple[str, str], list[str]] = {}
    meta_of: dict[tuple[str, str], dict[str, object]] = {}
    keys_of: dict[str, list[tuple[str, str]]] = {}
    for hit in chunks:
        key = (hit.data_id, str(source_of(hit.metadata).get("source_id") or ""))
        if key not in meta_of:
            keys_of.setdefault(hit.data_id, []).append(key)
            meta_of[key] = hit.metadata
        by_source.setdefault(key, []).append(hit.text)
    out = [
        _entry(row, meta_of.get(key, {}), "\n".join(by_source.get(key, [])))
        for row in rows
        for key in keys_of.get(row.id) or [(row.id, "")]
    ]
    return [s for s in out if not (s["expires_at"] is not None and s["expires_at"] <= now)]


def described(row: Row) -> Entry:
    """The one source of an item that is one (not a grouped conversation), from its
    row alone, without its text (``""``)."""
    return _entry(row, row.metadata, "")


def _entry(row: Row, metadata: dict[str, object], text: str) -> Entry:
    source = source_of(metadata)
    return {
        "id": str(source.get("source_id") or row.source_id or row.id),
        "data_id": row.id,
        "title": source.get("title") or row.name,
        "type": source.get("type"),
        "description": source.get("description"),
        "url": source.get("url"),
        "timestamp": source.get("timestamp") or source.get("uploaded_at"),
        "text": text,
        "tenant_metadata": metadata.get("tenant_metadata") or {},
        "document_metadata": metadata.get("additional_metadata") or {},
        "relations": source.get("relations") or [],
        "expires_at": metadata.get("expires_at"),
    }


@dataclass(frozen=True)
class Slot:
    """One source of a listing: its item, and which of the item's sources (a turn's
    id; None: the item's only one)."""

    row: Row
    source_id: str | None = None


Slots = Callable[[int, int], Awaitable[list[Slot]]]
"""The slots ``start`` to ``stop`` (as a slice) of a listing, 0 <= start <= stop."""


class SourceListing:
    """The sources of one sub-tenant's collection that a listing selected, oldest
    first: ``total`` counts them, ``page`` reads a slice with its text."""

    def __init__(self, reader: TenantReader, total: int, slots: Slots) -> None:
        self._reader = reader
        self._total = total
        self._slots = slots

    @property
    def total(self) -> int:
        return self._total

    async def page(self, start: int, stop: int) -> list[Entry]:
        """The sources ``start`` to ``stop`` (as a slice), each with its text: the
        chunks of their items only are read."""
        start, stop = max(0, start), max(0, stop)
        wanted = await self._slots(start, stop) if start < stop else []
        if not wanted:
            return []
        rows = list({s.row.id: s.row for s in wanted}.values())
        chunks = await self._reader.chunks_of_data([r.id for r in rows])
        found: dict[tuple[str, str | None], Entry] = {}
        for entry in entries(rows, chunks, now=time.time()):
            found.setdefault((entry["data_id"], entry["id"]), entry)
            found.setdefault((entry["data_id"], None), entry)
        # A source that expired since it was counted is left out, as a listing does.
        keys = [(s.row.id, s.source_id) for s in wanted]
        return [found[k] for k in keys if k in found]


async def select(
    reader: TenantReader,
    *,
    ids: Sequence[str] | None = None,
    where: SourceFilter | None = None,
) -> SourceListing:
    """The sources of ``reader``'s collection with one of ``ids`` (None: any) that
    ``where`` passes, oldest first.

    With neither, ``everything``. Else the rows the store finds for ``ids`` and the
    values of ``where`` are read (``TenantReader.documents_matching``), with every
    grouped conversation's and item's without a source id, and the chunks of these
    last two only (their sources are named in their chunks); every other item is
    one source, described by its row (``described``)."""
    if ids is None and where is None:
        return await everything(reader)
    rows: list[Row] = list(
        await reader.documents_matching(
            ids=ids,
            holding=where.holding() if where is not None else (),
            also_prefix=GROUP_PREFIX,
        )
    )
    wanted = set(ids) if ids is not None else None
    now = time.time()
    read = [r for r in rows if is_group(r.source_id) or not r.source_id]
    chunks = await reader.chunks_of_data([r.id for r in read]) if read else []
    found: dict[str, list[Entry]] = {}
    for entry in entries(read, chunks, now=now):
        found.setdefault(entry["data_id"], []).append(entry)
    read_ids = {r.id for r in read}
    slots: list[Slot] = []
    for row in rows:
        if row.id in read_ids:
            slots += [
                Slot(row, e["id"])
                for e in found.get(row.id, [])
                if (wanted is None or e["id"] in wanted) and (where is None or where.passes(e))
            ]
        elif not (
            _expired(row.metadata, now)
            or (wanted is not None and row.source_id not in wanted)
            or (where is not None and not where.passes(described(row)))
        ):
            slots.append(Slot(row))

    async def cut(start: int, stop: int) -> list[Slot]:
        return slots[start:stop]

    return SourceListing(reader, len(slots), cut)


async def everything(reader: TenantReader) -> SourceListing:
    """Every source of ``reader``'s collection (its one dataset), oldest first, read
    as far as a request needs: the count is a count query plus the rows and chunks
    of the grouped conversations (each turn a source; an item of no source or of
    one is one), and a page reads the rows it holds, cut in the store.

    An item that expired is forgotten before a listing reads (``TenantBase``); one
    that expires after the count is left out of its page."""
    groups = await reader.documents_page(source_prefix=GROUP_PREFIX)
    chunks = await reader.chunks_of_data([g.id for g in groups]) if groups else []
    turns: dict[str, list[Entry]] = {g.id: [] for g in groups}
    for entry in entries(groups, chunks, now=time.time()):
        turns[entry["data_id"]].append(entry)
    # where each conversation sits in the order of rows, and how many sources it is
    ranks = await reader.documents_before([(g.created_at, g.id) for g in groups])
    placed = [(rank, len(turns[g.id])) for rank, g in zip(ranks, groups, strict=True)]
    total = await reader.document_count() + sum(n - 1 for _, n in placed)

    async def cut(start: int, stop: int) -> list[Slot]:
        row, turn = _row_of(start, placed)
        out: list[Slot] = []
        while len(out) < stop - start:
            rows = await reader.documents_page(skip=row, limit=stop - start - len(out))
            for found in rows:
                held = turns.get(found.id) if is_group(found.source_id) else None
                if held is None:  # one source (a conversation stored since: its first)
                    out.append(Slot(found))
                else:
                    out += [Slot(found, e["id"]) for e in held[turn:]]
                turn = 0
            if not rows:
                break
            row += len(rows)
        return out[: stop - start]

    return SourceListing(reader, total, cut)


def _row_of(slot: int, placed: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The row (in listing order) that holds source ``slot``, and which of its
    sources it is, given where each grouped conversation sits (its row) and how
    many sources it holds, in order; every other row holds one."""
    extra = 0  # sources before a row beyond one per row
    for row, count in placed:
        first = row + extra
        if slot < first:
            break
        if slot < first + count:
            return row, slot - first
        extra += count - 1
    return slot - extra, 0


def _expired(metadata: dict[str, object], now: float) -> bool:
    expires: Any = metadata.get(EXPIRES_KEY)
    return expires is not None and bool(expires <= now)
