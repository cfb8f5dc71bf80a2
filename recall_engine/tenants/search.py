"""The tenant API's searches: full_recall / recall_preferences, boolean_recall and
qna. Each runs recall()'s pipeline (scope, narrowing, tense, feedback, coverage,
traces) with one of the tenant lanes pinned (``tenants.lanes``); full_recall and
recall_preferences then put chunks whose facts still hold before superseded ones
(``tenants.validity``)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Literal

import numpy as np

from recall_engine.core.facts import parse_utc
from recall_engine.core.hits import ChunkHit
from recall_engine.core.hydra import (
    DEFAULT_ALPHA,
    BooleanRecallRequest,
    QnARequest,
    QnASearchResponse,
    RecallSearchRequest,
    RetrievalResult,
)
from recall_engine.core.limits import check_query_size
from recall_engine.core.results import source_of, to_chunk, to_sources
from recall_engine.core.text_parts import Spans
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.pipeline.state import RecallState
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.recency import POOL
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants import hybrid
from recall_engine.tenants.base import TenantBase
from recall_engine.tenants.graph_context import build_graph_context
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.lanes import (
    BooleanLane,
    GraphLane,
    PassageLane,
    lane_request,
    lane_weights,
)
from recall_engine.tenants.validity import current_first
from retrievers.content_query import rest_spans

DEFAULT_MAX_RESULTS = 10
EXTRA_CHUNKS_PER_SOURCE = 2


class TenantSearch(TenantBase):
    """full_recall, recall_preferences, boolean_recall, qna."""

    def _check_query(self, text: str, what: str) -> None:
        check_query_size(text, limit=self.engine.config.max_query_chars, what=what)

    async def _embed(self, text: str, part: Spans | None = None) -> np.ndarray:
        return await self._batcher.embed(text, part)

    async def full_recall(
        self, request: RecallSearchRequest | Mapping[str, object] | None = None, **fields: object
    ) -> RetrievalResult:
        """Hybrid search of a sub-tenant's knowledge (see ``RecallSearchRequest``).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
        """
        return await self._recall(_request(request, fields), KNOWLEDGE)

    async def recall_preferences(
        self, request: RecallSearchRequest | Mapping[str, object] | None = None, **fields: object
    ) -> RetrievalResult:
        """Hybrid search of a sub-tenant's memories (same request as ``full_recall``)."""
        return await self._recall(_request(request, fields), MEMORIES)

    async def _recall(self, request: RecallSearchRequest, collection: str) -> RetrievalResult:
        """One search through recall()'s pipeline with the mode's lane pinned
        (``tenants.lanes``); superseded chunks are marked, and among memories moved
        after those that still hold."""
        self._check_query(request.query, "query")
        if request.additional_context:
            self._check_query(request.additional_context, "additional_context")
        record = self._record(request.tenant_id)
        where = hybrid.parse_filters(request.metadata_filters, record.filterable)
        where = where.model_copy(update={"alive_at": time.time()})
        scope = await self._scope(request.tenant_id, collection, request.sub_tenant_id, where)
        as_of = parse_utc(request.as_of)
        # as_of: every read here (alpha's term statistics, the chunks' facts, the graph
        # context, the linked sources) knows only what was said by then, as the pipeline's
        reader = scope.reader if as_of is None else AsOfReader.of(scope.reader, as_of)
        if request.alpha == "auto":
            rare = await hybrid.has_rare_term(reader, request.query)
            alpha = hybrid.choose_alpha(request.query, has_rare_term=rare)
        else:
            alpha = float(request.alpha)
        if not scope.exists:  # nothing was added to this sub-tenant yet
            return RetrievalResult(alpha_used=alpha)
        k = request.max_results or DEFAULT_MAX_RESULTS
        thinking = request.mode == "thinking"
        options: dict[str, object] = {**lane_weights(alpha)}
        embed_text = request.query
        if request.additional_context:
            embed_text = f"{request.query}\n{request.additional_context}"
            options["embed_text"] = embed_text
        # Concurrent requests' query embeddings are computed together (``batching``);
        # the pipeline then finds this one in the per-process query cache. The graph
        # lane also searches with the question without its speakers' names: that part
        # comes from the question's own pass.
        rest = rest_spans(request.query, await reader.speakers()) if thinking else None
        await self._embed(request.query, rest)
        state = await self.engine.run(
            lane_request(
                GraphLane if thinking else PassageLane,
                query=request.query,
                store=scope.store,
                dataset_id=scope.dataset_id,
                # as_of drops what was said later: ask a deeper pool, keep k
                top_k=max(k, POOL) if as_of is not None else k,
                where=where,
                options=options,
                recency_bias=request.recency_bias,
                as_of=as_of,
            )
        )
        hits = _chunk_hits(state)[:k]
        chunks = [to_chunk(h, score=round(h.score, 6)) for h in hits]
        validity = await reader.chunk_validity([c.chunk_uuid for c in chunks])
        # Memories: what holds first, whatever the question. Knowledge: a question the
        # tense stage read as about now or the past keeps its order (it ranked each
        # chunk for that time; a past question may want what was replaced since).
        reading = state.tense.name if state.tense is not None else "none"
        move = collection == MEMORIES or reading not in ("present", "past")
        chunks = current_first(chunks, validity, as_of=as_of, move=move)
        result = RetrievalResult(chunks=chunks, sources=to_sources(hits), alpha_used=alpha)
        if request.graph_context:
            vector = state.query_vector
            if vector is None or request.additional_context:
                vector = await self._embed(embed_text)
            result.graph_context = await build_graph_context(reader, request.query, vector, hits)
        if thinking and request.search_forceful_relations:
            # a source's declared links are followed whatever metadata_filters say (the
            # filters choose the results, not what a result links to), within the
            # sub-tenant and, with as_of, among what was said by then
            linked: TenantReader = self.engine.reader(
                scope.store, [scope.dataset_id], where=ChunkFilter(alive_at=where.alive_at)
            )
            if as_of is not None:
                linked = AsOfReader.of(linked, as_of)
            await self._attach_relations(reader, linked, result, where)
        return result

    async def _attach_relations(
        self,
        reader: TenantReader,
        linked_reader: TenantReader,
        result: RetrievalResult,
        where: ChunkFilter,
    ) -> None:
        """Attach the chunks of sources each returned chunk's source links to, read
        through ``linked_reader``."""
        by_chunk = {c.chunk_uuid: c for c in result.chunks}
        hits = await reader.chunks_by_id(list(by_chunk))
        links = {h.chunk_id: list(source_of(h.metadata).get("relations") or []) for h in hits}
        wanted = sorted({s for ids in links.values() for s in ids})
        if not wanted:
            return
        data_of = await linked_reader.data_ids_of_sources(wanted)
        now = where.alive_at or time.time()
        for chunk_id, source_ids in links.items():
            extra: list[str] = []
            for source_id in source_ids:
                data_id = data_of.get(source_id)
                if data_id is None:
                    continue
                linked = await linked_reader.chunks_of_data([data_id])
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
        where = ChunkFilter(alive_at=time.time())
        scope = await self._scope(tenant_id, collection, request.sub_tenant_id, where)
        if not scope.exists:
            return RetrievalResult()
        state = await self.engine.run(
            lane_request(
                BooleanLane,
                query=request.query,
                store=scope.store,
                dataset_id=scope.dataset_id,
                top_k=request.max_results or DEFAULT_MAX_RESULTS,
                where=where,
                options={"operator": request.operator},
            )
        )
        hits = _chunk_hits(state)
        return RetrievalResult(chunks=[to_chunk(h) for h in hits], sources=to_sources(hits))

    async def qna(self, request: QnARequest | Mapping[str, object]) -> QnASearchResponse:
        """Recall, then answer from the chunks (through the LLM when one is
        configured, extractively offline)."""
        from recall_engine.llm.completion import generate_answer

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


def _request(
    request: RecallSearchRequest | Mapping[str, object] | None, fields: dict[str, object]
) -> RecallSearchRequest:
    if isinstance(request, RecallSearchRequest):
        if not fields:
            return request
        # validated again: a copy's update would take a misspelled keyword unchecked
        request = request.model_dump(exclude_unset=True)
    return RecallSearchRequest.model_validate({**(request or {}), **fields})


def _chunk_hits(state: RecallState) -> list[ChunkHit]:
    """The chunks the pipeline ranked, best first (none when coverage found that
    the query matches nothing)."""
    hits = state.output.hits if state.output is not None else []
    return [h for h in hits if isinstance(h, ChunkHit)]
