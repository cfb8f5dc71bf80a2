"""The tenant API's listing and fetching: a collection's sources with their text,
one source, its relations, and chunk counts."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from recall_engine.core.hydra import (
    DEFAULT_SUB_TENANT,
)
from recall_engine.core.results import source_of, to_triplet
from recall_engine.tenants.base import Collection, TenantBase
from recall_engine.tenants.errors import SourceNotFoundError
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES


class TenantSources(TenantBase):
    """list_sources, source, source_relations, stats, dimension."""

    async def list_sources(
        self,
        tenant_id: str,
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
    ) -> list[dict[str, Any]]:
        """The sources of a sub-tenant's collection, oldest first, each with its
        fields, metadata and text."""
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        rows = await reader.documents()
        rows.sort(key=lambda r: (r.created_at, r.id))
        chunks = await reader.chunks_of_data([r.id for r in rows])
        # One entry per source: a document's chunks, or a conversation turn's.
        by_source: dict[tuple[str, str], list[str]] = {}
        meta_of: dict[tuple[str, str], dict[str, object]] = {}
        keys_of: dict[str, list[tuple[str, str]]] = {}
        for hit in chunks:
            key = (hit.data_id, str(source_of(hit.metadata).get("source_id") or ""))
            if key not in meta_of:
                keys_of.setdefault(hit.data_id, []).append(key)
                meta_of[key] = hit.metadata
            by_source.setdefault(key, []).append(hit.text)
        out: list[dict[str, Any]] = []
        for row in rows:
            keys = keys_of.get(row.id) or [(row.id, "")]
            for key in keys:
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
        now = time.time()
        return [s for s in out if not (s["expires_at"] is not None and s["expires_at"] <= now)]

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
            for found in await self.list_sources(
                tenant_id,
                sub_tenant_id=sub_tenant_id,
                collection=name,  # type: ignore[arg-type]
            ):
                if found["id"] == source_id:
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
