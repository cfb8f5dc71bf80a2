"""The tenant API's listing and fetching: a collection's sources with their text,
one source, its relations, and chunk counts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from recall_engine.core.hydra import (
    DEFAULT_SUB_TENANT,
)
from recall_engine.core.results import source_of, to_triplet
from recall_engine.tenants.attribute_kinds import Attributes
from recall_engine.tenants.base import Collection, TenantBase
from recall_engine.tenants.errors import SourceNotFoundError
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.source_filter import SourceFilter
from recall_engine.tenants.source_rows import Entry, Found, SourceListing, entries, select


class TenantSources(TenantBase):
    """list_sources, find_sources, listing, source, source_relations, stats, dimension."""

    async def list_sources(
        self,
        tenant_id: str,
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
    ) -> list[Entry]:
        """The sources of a sub-tenant's collection, oldest first, each with its
        fields, metadata and text. Reads every source's text: a request that wants
        some ids or one page reads ``find_sources`` or ``listing`` instead."""
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        rows = sorted(await reader.documents(), key=lambda r: (r.created_at, r.id))
        chunks = await reader.chunks_of_data([r.id for r in rows])
        return entries(rows, chunks, now=time.time())

    async def find_sources(
        self,
        tenant_id: str,
        source_ids: Sequence[str],
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
    ) -> list[Entry]:
        """The sources of a sub-tenant's collection with these ids (as
        ``list_sources`` lists them), reading those sources only: the items that
        declare them, and, for an id no item declares (a conversation turn, an
        unknown id), the items' rows and the grouped conversations' chunks.
        Ordered by the item found; an id found twice (never, as the tenant API
        writes) keeps the item that declares it first."""
        wanted = list(dict.fromkeys(source_ids))
        if not wanted:
            return []
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        declared = await reader.data_ids_of_sources(wanted)
        chunks = await reader.chunks_of_data(list(dict.fromkeys(declared.values())))
        name_of = {h.data_id: h.document_name for h in chunks}
        rows = [Found(d, s, name_of[d]) for s, d in declared.items() if d in name_of]
        out = [e for e in entries(rows, chunks, now=time.time()) if e["id"] in declared]
        left = [i for i in wanted if i not in {e["id"] for e in out}]
        if left:
            listing = await select(reader, ids=left)
            out += await listing.page(0, listing.total)
        return out

    async def listing(
        self,
        tenant_id: str,
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
        source_ids: Sequence[str] | None = None,
        where: SourceFilter | None = None,
    ) -> SourceListing:
        """The sources of a sub-tenant's collection with one of ``source_ids``
        (None: any) that ``where`` passes, oldest first, to count and read a page of
        (``source_rows.select``: the rows of those ids and values, not every row).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: ``where`` names a field it could never match as
                written (``SourceFilter.check``); nothing is read.
        """
        if where is not None:
            where.check(Attributes(self._record(tenant_id).metadata_schema))
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        return await select(reader, ids=source_ids, where=where)

    async def source(
        self,
        tenant_id: str,
        source_id: str,
        *,
        sub_tenant_id: str | None = None,
        collection: Collection | None = None,
    ) -> dict[str, Any]:
        """One source (knowledge first, then memories unless ``collection`` is given).

        Raises:
            SourceNotFoundError: no such source in the sub-tenant.
        """
        for name in (collection,) if collection else (KNOWLEDGE, MEMORIES):
            for found in await self.find_sources(
                tenant_id,
                [source_id],
                sub_tenant_id=sub_tenant_id,
                collection=name,  # type: ignore[arg-type]
            ):
                return {**found, "collection": name}
        raise SourceNotFoundError(
            f"no source {source_id!r} in tenant {tenant_id!r}, sub-tenant "
            f"{sub_tenant_id or DEFAULT_SUB_TENANT!r}."
        )

    async def source_relations(
        self,
        tenant_id: str,
        source_id: str,
        *,
        sub_tenant_id: str | None = None,
        is_memory: bool = False,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """The graph relations stated in a source, grouped per (source, target, chunk)."""
        collection: Collection = MEMORIES if is_memory else KNOWLEDGE
        found = await self.source(
            tenant_id, source_id, sub_tenant_id=sub_tenant_id, collection=collection
        )
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        chunk_ids = [
            h.chunk_id
            for h in await reader.chunks_of_data([found["data_id"]])
            if source_of(h.metadata).get("source_id", source_id) == source_id
        ]
        relations = await reader.chunk_relations(chunk_ids)
        groups: dict[tuple[str, str, str], dict[str, Any]] = {}
        for chunk_id in chunk_ids:
            for edge in relations.get(chunk_id, []):
                triplet = to_triplet(edge)
                key = (edge.source.id, edge.target.id, chunk_id)
                group = groups.setdefault(
                    key,
                    {
                        "source": triplet.source,
                        "target": triplet.target,
                        "relations": [],
                        "chunk_id": chunk_id,
                    },
                )
                group["relations"].append(triplet.relation)
        return list(groups.values())[:limit]

    async def stats(self, tenant_id: str) -> dict[str, int]:
        """Chunk counts of the knowledge and memory collections over all sub-tenants."""
        store = await self._store(tenant_id)
        counts = {KNOWLEDGE: 0, MEMORIES: 0}
        for dataset_id, name in (await asyncio.to_thread(self.engine.datasets, store)).items():
            prefix = name.split(":", 1)[0]
            if prefix in counts:
                reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
                counts[prefix] += await reader.count()
        return counts

    def dimension(self) -> int:
        return int(self.engine.embedder.dimension)
