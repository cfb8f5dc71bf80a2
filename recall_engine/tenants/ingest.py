"""The tenant API's writes: memories and knowledge sources remembered in a
sub-tenant's collection (one ingest per request, each item's error reported), and
sources deleted by id."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from recall_engine.core.hydra import (
    DEFAULT_SUB_TENANT,
    AddMemoryResponse,
    KnowledgeSource,
    MemoryItem,
    MemoryResultItem,
    SourceUploadResponse,
    SourceUploadResultItem,
)
from recall_engine.tenants.base import Collection, TenantBase
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.memories import Prepared, prepare_memory, prepare_source


class TenantIngest(TenantBase):
    """add_memory, upload_knowledge, delete_sources."""

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[MemoryItem | dict[str, Any]],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> AddMemoryResponse:
        """Store memories (text, markdown or user/assistant pairs) in a sub-tenant;
        a memory whose ``source_id`` exists replaces it (unless ``upsert`` is False,
        then it fails). Returns once they are searchable.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad sub-tenant id.
        """
        items = [MemoryItem.model_validate(m) for m in memories]
        prepared = [prepare_memory(m) for m in items]
        results = await self._ingest(tenant_id, MEMORIES, sub_tenant_id, prepared, upsert=upsert)
        out = [
            MemoryResultItem(
                source_id=p.source_id,
                title=p.title,
                status="failed" if error else "completed",
                infer=item.infer,
                error=error,
            )
            for item, p, error in zip(items, prepared, results, strict=True)
        ]
        return _summary(AddMemoryResponse, out)

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[KnowledgeSource | dict[str, Any]] = (),
        *,
        files: Sequence[tuple[str, bytes, dict[str, Any]]] = (),
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge: app sources, and files given
        as (filename, bytes, metadata) whose bytes are UTF-8 text.

        Raises:
            TenantNotFoundError: no such tenant.
        """
        prepared = [prepare_source(KnowledgeSource.model_validate(s)) for s in sources]
        for filename, body, meta in files:
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                fid = str(meta.get("file_id") or meta.get("id") or filename)
                prepared.append(
                    Prepared(
                        fid, filename, error="only UTF-8 text files can be read", filename=filename
                    )
                )
                continue
            fields = {**meta, "text": text}
            fields.setdefault("id", meta.get("file_id"))
            fields.setdefault("title", filename)
            prepared.append(
                prepare_source(KnowledgeSource.model_validate(fields), filename=filename)
            )
        results = await self._ingest(tenant_id, KNOWLEDGE, sub_tenant_id, prepared, upsert=upsert)
        out = [
            SourceUploadResultItem(
                source_id=p.source_id,
                filename=p.filename,
                status="failed" if error else "completed",
                error=error,
            )
            for p, error in zip(prepared, results, strict=True)
        ]
        return _summary(SourceUploadResponse, out)

    async def _ingest(
        self,
        tenant_id: str,
        collection: str,
        sub: str | None,
        prepared: list[Prepared],
        *,
        upsert: bool,
    ) -> list[str | None]:
        """Remember the prepared sources in one ingest; the error of each (or None)."""
        store = await self._store(tenant_id)
        name, dataset_id = self._dataset(store, collection, sub)
        errors: list[str | None] = [p.error for p in prepared]
        seen: set[str] = set()
        for n, p in enumerate(prepared):
            if errors[n] is None and p.source_id in seen:
                errors[n] = f"source_id {p.source_id!r} appears twice in this request"
            seen.add(p.source_id)
        if not upsert:
            ids = [p.source_id for p, e in zip(prepared, errors, strict=True) if e is None]
            reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
            existing = await reader.data_ids_of_sources(ids)
            for n, p in enumerate(prepared):
                if errors[n] is None and p.source_id in existing:
                    errors[n] = f"source_id {p.source_id!r} exists and upsert is false"
        data = [p.data for p, e in zip(prepared, errors, strict=True) if e is None]
        if data:
            await self.engine.remember(data, dataset_name=name, tenant_id=store)
            self.registry.add_sub_tenant(tenant_id, sub or DEFAULT_SUB_TENANT)
            stored_ids = [p.source_id for p, e in zip(prepared, errors, strict=True) if e is None]
            reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
            stored = await reader.data_ids_of_sources(stored_ids)
            for n, p in enumerate(prepared):
                if errors[n] is None and p.source_id not in stored:
                    # The engine keeps identical content once per dataset.
                    errors[n] = "the same content is already stored in this sub-tenant"
        return errors

    async def delete_sources(
        self,
        tenant_id: str,
        source_ids: Sequence[str],
        *,
        sub_tenant_id: str | None = None,
        collection: Collection = KNOWLEDGE,
    ) -> dict[str, bool]:
        """Delete sources by id; source id -> whether it existed (and is now gone)."""
        store = await self._store(tenant_id)
        _name, dataset_id = self._dataset(store, collection, sub_tenant_id)
        reader = await asyncio.to_thread(self.engine.reader, store, [dataset_id])
        found = await reader.data_ids_of_sources(list(source_ids))
        if found:
            await self.engine.forget(data_id=sorted(set(found.values())), tenant_id=store)
        return {s: s in found for s in source_ids}


def _summary(model: Any, results: list[Any]) -> Any:
    failed = sum(1 for r in results if r.status == "failed")
    return model(
        success=failed == 0,
        message=f"{len(results) - failed} stored, {failed} failed",
        results=results,
        success_count=len(results) - failed,
        failed_count=failed,
    )
