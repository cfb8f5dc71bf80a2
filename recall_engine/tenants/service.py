"""``TenantAPI``: HydraDB's recall API on the engine.

A HydraDB tenant is an engine tenant (its own Kuzu + LanceDB store); each
sub-tenant holds two datasets, ``kb:<sub>`` (knowledge, searched by
``full_recall``) and ``mem:<sub>`` (memories, searched by
``recall_preferences``). A search reads through a ``TenantReader`` bound to the
one dataset asked for, so no call sees another tenant's or sub-tenant's data.
Ingestion returns once the data is durable and searchable.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import numpy as np

from recall_engine.config import RecallConfig
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.limits import check_query_size
from recall_engine.core.models import RememberResult
from recall_engine.core.validation import dataset_id_for
from recall_engine.embedding import Embedder
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants import hybrid
from recall_engine.tenants.batching import QueryBatcher
from recall_engine.tenants.convert import (
    KNOWLEDGE,
    MEMORIES,
    dataset_name,
    source_of,
    to_chunk,
    to_sources,
)
from recall_engine.tenants.errors import SourceNotFoundError
from recall_engine.tenants.graph_context import build_graph_context
from recall_engine.tenants.memories import Prepared, prepare_memory, prepare_source
from recall_engine.tenants.models import (
    DEFAULT_ALPHA,
    DEFAULT_SUB_TENANT,
    AddMemoryResponse,
    BooleanRecallRequest,
    CustomPropertyDefinition,
    KnowledgeSource,
    MemoryItem,
    MemoryResultItem,
    QnARequest,
    QnASearchResponse,
    RecallSearchRequest,
    RetrievalResult,
    SourceUploadResponse,
    SourceUploadResultItem,
    TenantCreateAcceptedResponse,
)
from recall_engine.tenants.registry import TenantRecord, TenantRegistry

DEFAULT_MAX_RESULTS = 10
EXTRA_CHUNKS_PER_SOURCE = 2
Collection = Literal["kb", "mem"]


class EnginePort(Protocol):
    """What the tenant API needs of the engine (``engine.tenant_port.TenantPort``):
    readers to read, remember / forget to write, and no store. The blocking ones
    are called off the event loop."""

    @property
    def config(self) -> RecallConfig: ...

    @property
    def embedder(self) -> Embedder: ...

    def open(self, tenant: str) -> None: ...

    def datasets(self, tenant: str) -> dict[str, str]: ...

    def reader(
        self, tenant: str, dataset_ids: Sequence[str], *, where: ChunkFilter | None = None
    ) -> TenantReader: ...

    def forget_expired(self, tenant: str) -> None: ...

    async def remember(self, data: Any, *, dataset_name: str, tenant_id: str) -> RememberResult: ...

    async def forget(self, *, data_id: Sequence[str], tenant_id: str) -> int: ...

    async def drop_tenant(self, tenant_id: str) -> None: ...


class TenantAPI:
    """HydraDB-style tenants, memories, knowledge and recall over one engine."""

    def __init__(self, engine: EnginePort, registry: TenantRegistry | None = None) -> None:
        self.engine = engine
        self.registry = registry or TenantRegistry(engine.config.data_dir)
        self._batcher = QueryBatcher(engine.embedder)

    # tenants

    def _record(self, tenant_id: str) -> TenantRecord:
        return self.registry.get(tenant_id)

    async def create_tenant(
        self,
        tenant_id: str,
        metadata_schema: Sequence[CustomPropertyDefinition | dict[str, Any]] | None = None,
    ) -> TenantCreateAcceptedResponse:
        """Create a tenant with its own store; ``metadata_schema`` declares its
        tenant-level metadata fields (``enable_match``: usable in metadata_filters).

        Raises:
            InvalidInputError: a bad tenant id or schema.
            TenantAlreadyExistsError: the tenant exists.
        """
        name = self.registry.store_name(tenant_id)
        fields = [
            CustomPropertyDefinition.model_validate(f).model_dump(exclude_none=True)
            for f in metadata_schema or ()
        ]
        names = [f["name"] for f in fields]
        if len(set(names)) != len(names):
            raise InvalidInputError("metadata_schema names a field twice; give each field once.")
        await asyncio.to_thread(self.engine.open, name)
        self.registry.create(tenant_id, fields)
        return TenantCreateAcceptedResponse(
            status="created", tenant_id=tenant_id, message=f"tenant {tenant_id!r} is ready"
        )

    async def delete_tenant(self, tenant_id: str) -> None:
        """Delete a tenant and everything stored in it.

        Raises:
            TenantNotFoundError: no such tenant.
        """
        self._record(tenant_id)
        await self.engine.drop_tenant(self.registry.store_name(tenant_id))
        self.registry.delete(tenant_id)  # its API keys too

    def sub_tenant_ids(self, tenant_id: str) -> list[str]:
        self._record(tenant_id)
        return self.registry.sub_tenants(tenant_id)

    async def _store(self, tenant_id: str) -> str:
        """The engine tenant (store name) of a HydraDB tenant, its store open."""
        self._record(tenant_id)
        name = self.registry.store_name(tenant_id)
        await asyncio.to_thread(self.engine.open, name)
        return name

    def _dataset(self, store: str, collection: str, sub: str | None) -> tuple[str, str]:
        owner = self.registry.owner_of(store)
        sub_name = self.registry.sub_tenant_name(owner, sub or DEFAULT_SUB_TENANT)
        name = dataset_name(collection, sub_name)
        return name, dataset_id_for(store, name)

    async def _reader(
        self, tenant_id: str, collection: str, sub: str | None, where: ChunkFilter | None = None
    ) -> TenantReader:
        """A reader of one sub-tenant's collection; ``where`` binds its chunk searches."""
        store = await self._store(tenant_id)
        await asyncio.to_thread(self.engine.forget_expired, store)  # nothing may cite them
        _, dataset_id = self._dataset(store, collection, sub)
        return await asyncio.to_thread(self.engine.reader, store, [dataset_id], where=where)

    # ingestion

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

    # recall

    def _check_query(self, text: str, what: str) -> None:
        check_query_size(text, limit=self.engine.config.max_query_chars, what=what)

    async def _embed(self, text: str) -> np.ndarray:
        return await self._batcher.embed(text)

    async def full_recall(
        self, request: RecallSearchRequest | dict[str, Any] | None = None, **fields: Any
    ) -> RetrievalResult:
        """Hybrid search of a sub-tenant's knowledge (see ``RecallSearchRequest``).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
        """
        return await self._recall(_request(request, fields), KNOWLEDGE)

    async def recall_preferences(
        self, request: RecallSearchRequest | dict[str, Any] | None = None, **fields: Any
    ) -> RetrievalResult:
        """Hybrid search of a sub-tenant's memories (same request as ``full_recall``)."""
        return await self._recall(_request(request, fields), MEMORIES)

    async def _recall(self, request: RecallSearchRequest, collection: str) -> RetrievalResult:
        self._check_query(request.query, "query")
        if request.additional_context:
            self._check_query(request.additional_context, "additional_context")
        record = self._record(request.tenant_id)
        where = hybrid.parse_filters(request.metadata_filters, record.filterable)
        where = where.model_copy(update={"alive_at": time.time()})
        reader = await self._reader(request.tenant_id, collection, request.sub_tenant_id, where)
        if request.alpha == "auto":
            rare = await hybrid.has_rare_term(reader, request.query)
            alpha = hybrid.choose_alpha(request.query, has_rare_term=rare)
        else:
            alpha = float(request.alpha)
        text = request.query
        if request.additional_context:
            text = f"{request.query}\n{request.additional_context}"
        vector = await self._embed(text)
        k = request.max_results or DEFAULT_MAX_RESULTS
        thinking = request.mode == "thinking"
        ranked = await hybrid.rank(
            reader,
            query=request.query,
            vector=vector,
            k=k,
            alpha=alpha,
            recency_bias=request.recency_bias,
            thinking=thinking,
        )
        chunks = [to_chunk(r.chunk, score=round(r.score, 6)) for r in ranked]
        result = RetrievalResult(
            chunks=chunks, sources=to_sources(r.chunk for r in ranked), alpha_used=alpha
        )
        if request.graph_context:
            result.graph_context = await build_graph_context(reader, request.query, vector, ranked)
        if thinking and request.search_forceful_relations:
            await self._attach_relations(reader, result, where)
        return result

    async def _attach_relations(
        self, reader: TenantReader, result: RetrievalResult, where: ChunkFilter
    ) -> None:
        """Attach the chunks of sources each returned chunk's source links to."""
        by_chunk = {c.chunk_uuid: c for c in result.chunks}
        hits = await reader.chunks_by_id(list(by_chunk))
        links = {h.chunk_id: list(source_of(h.metadata).get("relations") or []) for h in hits}
        wanted = sorted({s for ids in links.values() for s in ids})
        if not wanted:
            return
        data_of = await reader.data_ids_of_sources(wanted)
        now = where.alive_at or time.time()
        for chunk_id, source_ids in links.items():
            extra: list[str] = []
            for source_id in source_ids:
                data_id = data_of.get(source_id)
                if data_id is None:
                    continue
                linked = await reader.chunks_of_data([data_id])
                for hit in linked[:EXTRA_CHUNKS_PER_SOURCE]:
                    expires = hit.metadata.get("expires_at")
                    if isinstance(expires, int | float) and expires <= now:
                        continue
                    result.additional_context.setdefault(hit.chunk_id, to_chunk(hit))
                    extra.append(hit.chunk_id)
            if extra:
                by_chunk[chunk_id].extra_context_ids = extra

    async def boolean_recall(
        self,
        tenant_id: str,
        query: str,
        *,
        operator: Literal["or", "and", "phrase"] = "or",
        search_mode: Literal["sources", "memories"] = "sources",
        sub_tenant_id: str | None = None,
        max_results: int | None = None,
    ) -> RetrievalResult:
        """Exact lexical matching: chunks with any term (``or``), all terms
        (``and``) or the exact phrase (``phrase``), best BM25 first."""
        request = BooleanRecallRequest(
            tenant_id=tenant_id,
            query=query,
            operator=operator,
            search_mode=search_mode,
            sub_tenant_id=sub_tenant_id,
            max_results=max_results,
        )
        self._check_query(request.query, "query")
        collection = MEMORIES if request.search_mode == "memories" else KNOWLEDGE
        reader = await self._reader(tenant_id, collection, request.sub_tenant_id)
        hits = await reader.boolean_chunks(
            request.query,
            request.max_results or DEFAULT_MAX_RESULTS,
            operator=request.operator,
            where=ChunkFilter(alive_at=time.time()),
        )
        return RetrievalResult(chunks=[to_chunk(h) for h in hits], sources=to_sources(hits))

    async def qna(self, request: QnARequest | dict[str, Any]) -> QnASearchResponse:
        """Recall, then answer from the chunks (through the LLM when one is
        configured, extractively offline)."""
        from recall_engine.completion import generate_answer

        started = time.perf_counter()
        ask = QnARequest.model_validate(request)
        search = RecallSearchRequest(
            tenant_id=ask.tenant_id,
            sub_tenant_id=ask.sub_tenant_id,
            query=ask.question,
            max_results=ask.max_chunks or DEFAULT_MAX_RESULTS,
            mode=ask.mode,
            alpha=ask.alpha if ask.alpha is not None else DEFAULT_ALPHA,
            graph_context=ask.include_graph_context,
            additional_context=ask.extra_context,
        )
        collection = MEMORIES if ask.search_mode == "memories" else KNOWLEDGE
        result = await self._recall(search, collection)
        reader = await self._reader(ask.tenant_id, collection, ask.sub_tenant_id)
        hits = await reader.chunks_by_id([c.chunk_uuid for c in result.chunks])
        answer = await generate_answer(ask.question, hits, config=self.engine.config)
        return QnASearchResponse(
            answer=answer.text,
            chunks=result.chunks,
            graph_context=result.graph_context if ask.include_graph_context else None,
            model_used=answer.usage.get("model"),
            timing={"total_ms": round((time.perf_counter() - started) * 1000, 3)},
            answer_mode=answer.answer_mode,
        )

    # listing and fetching

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
        rows.sort(key=lambda r: (str(r.get("created_at")), r["id"]))
        chunks = await reader.chunks_of_data([r["id"] for r in rows])
        by_data: dict[str, list[str]] = {}
        meta_of: dict[str, dict[str, Any]] = {}
        for hit in chunks:
            by_data.setdefault(hit.data_id, []).append(hit.text)
            meta_of.setdefault(hit.data_id, hit.metadata)
        out = []
        for row in rows:
            metadata = meta_of.get(row["id"], {})
            source = source_of(metadata)
            out.append(
                {
                    "id": str(source.get("source_id") or row.get("source_id") or row["id"]),
                    "data_id": row["id"],
                    "title": source.get("title") or row.get("name"),
                    "type": source.get("type"),
                    "description": source.get("description"),
                    "url": source.get("url"),
                    "timestamp": source.get("timestamp") or source.get("uploaded_at"),
                    "text": "\n".join(by_data.get(row["id"], [])),
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
        from recall_engine.tenants.convert import to_triplet

        collection: Collection = MEMORIES if is_memory else KNOWLEDGE
        found = await self.source(
            tenant_id, source_id, sub_tenant_id=sub_tenant_id, collection=collection
        )
        reader = await self._reader(tenant_id, collection, sub_tenant_id)
        chunk_ids = [h.chunk_id for h in await reader.chunks_of_data([found["data_id"]])]
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


def _request(request: RecallSearchRequest | dict[str, Any] | None, fields: dict[str, Any]):
    if isinstance(request, RecallSearchRequest):
        return request.model_copy(update=fields) if fields else request
    return RecallSearchRequest.model_validate({**(request or {}), **fields})


def _summary(model: Any, results: list[Any]) -> Any:
    failed = sum(1 for r in results if r.status == "failed")
    return model(
        success=failed == 0,
        message=f"{len(results) - failed} stored, {failed} failed",
        results=results,
        success_count=len(results) - failed,
        failed_count=failed,
    )
