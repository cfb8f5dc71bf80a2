"""A collection's sources as the tenant API lists them, built from the stored items
(graph rows) and their chunks, and read only as far as a request needs: a page
reads the chunks of its own items, a count reads none but those of grouped
conversations (whose turns are sources of their own).

A source is one stored item, or one turn of a grouped conversation
(``tenants.conversations``): every other item's chunks carry the item's own
metadata, its one source record among them (``ingest.prepare.chunk_records``), so
its row alone says that it is one source and when it expires.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from recall_engine.core.hits import ChunkHit
from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.core.results import source_of
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.conversations import is_group

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
    out: list[Entry] = []
    for row in rows:
        for key in keys_of.get(row.id) or [(row.id, "")]:
            metadata = meta_of.get(key, {})
            source = source_of(metadata)
            out.append(
                {
                    "id": str(source.get("source_id") or row.source_id or row.id),
                    "data_id": row.id,
                    "title": source.get("title") or row.name,
                    "type": source.get("type"),
                    "description": source.get("description"),
                    "url": source.get("url"),
                    "timestamp": source.get("timestamp") or source.get("uploaded_at"),
                    "text": "\n".join(by_source.get(key, [])),
                    "tenant_metadata": metadata.get("tenant_metadata") or {},
                    "document_metadata": metadata.get("additional_metadata") or {},
                    "relations": source.get("relations") or [],
                    "expires_at": metadata.get("expires_at"),
                }
            )
    return [s for s in out if not (s["expires_at"] is not None and s["expires_at"] <= now)]


@dataclass(frozen=True)
class Slot:
    """One source of a listing: its item, and which of the item's sources (a turn's
    id; None: the item's only one)."""

    row: Row
    source_id: str | None = None


class SourceListing:
    """The sources of one sub-tenant's collection that a listing selected, oldest
    first: ``total`` counts them, ``page`` reads a slice with its text."""

    def __init__(self, reader: TenantReader, slots: list[Slot]) -> None:
        self._reader = reader
        self._slots = slots

    @property
    def total(self) -> int:
        return len(self._slots)

    async def page(self, start: int, stop: int) -> list[Entry]:
        """The sources ``start`` to ``stop`` (as a slice), each with its text: the
        chunks of their items only are read."""
        wanted = self._slots[max(0, start) : max(0, stop)]
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
    where: Callable[[Entry], bool] | None = None,
) -> SourceListing:
    """The sources of ``reader``'s collection with one of ``ids`` (None: any) that
    ``where`` accepts (it sees each entry without its text), oldest first.

    Every item's row is read (the order and the count need them); chunks are read
    of the items that may hold a wanted source only when ``where`` is given, else
    of the grouped conversations (to count their turns) and of the items that
    might hold one of ``ids`` under another id than their row's."""
    rows: list[Row] = sorted(await reader.documents(), key=lambda r: (r.created_at, r.id))
    wanted = set(ids) if ids is not None else None
    if wanted is not None:
        rows = [r for r in rows if _may_hold(r, wanted)]
    now = time.time()
    read = rows
    if where is None:
        read = [r for r in rows if is_group(r.source_id) or (ids is not None and not r.source_id)]
    chunks = await reader.chunks_of_data([r.id for r in read]) if read else []
    found: dict[str, list[Entry]] = {}
    for entry in entries(read, chunks, now=now):
        found.setdefault(entry["data_id"], []).append(entry)
    read_ids = {r.id for r in read}
    slots: list[Slot] = []
    for row in rows:
        if row.id not in read_ids:
            if _expired(row.metadata, now) or (wanted is not None and row.source_id not in wanted):
                continue
            slots.append(Slot(row))
            continue
        for entry in found.get(row.id, []):
            if (wanted is None or entry["id"] in wanted) and (where is None or where(entry)):
                slots.append(Slot(row, entry["id"]))
    return SourceListing(reader, slots)


def _may_hold(row: Row, wanted: set[str]) -> bool:
    """Whether an item may hold a source of one of these ids: its row's source, a
    grouped conversation's turn, or an item with no source id listed by its own."""
    return not row.source_id or row.source_id in wanted or is_group(row.source_id)


def _expired(metadata: dict[str, object], now: float) -> bool:
    expires: Any = metadata.get(EXPIRES_KEY)
    return expires is not None and bool(expires <= now)
