"""The ingest pipeline: source items -> chunks -> vectors + graph -> one atomic commit.

Texts the dataset's items already embedded (an item stored again under its source id)
are served from their kept vectors (``ingest.reuse``); only the others are embedded.

Graph extraction runs in a worker thread while the model embeds the chunks;
the texts of the new entities are embedded together with the last, partial
batch of chunks (so that every embedding batch but one is full), their vectors
serve entity resolution, and one more call embeds the relations.

A stop flag (``ingest.stop``) is checked before each embedding window and right
before the commit: set before the commit, the ingest stores nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np

from recall_engine.config import RecallConfig
from recall_engine.core.graph import ChunkExtraction
from recall_engine.core.models import RememberResult
from recall_engine.core.validation import stable_id
from recall_engine.embedding import Embedder
from recall_engine.graph.extractor import Extractor, make_namespace
from recall_engine.graph.resolution import DEFAULT_SIMILARITY_THRESHOLD
from recall_engine.graph.stage import (
    NEAREST_K,
    GraphPlan,
    build_extractor,
    draft_graph,
    start_extraction,
)
from recall_engine.graph.supersession import stamp, statement_times
from recall_engine.ingest.chunking import ChunkDraft
from recall_engine.ingest.embed_batches import CheckedEmbedder, embed_all
from recall_engine.ingest.gc_pause import gc_paused
from recall_engine.ingest.observe import remembering
from recall_engine.ingest.prepare import (
    PreparedItem,
    chunk_inputs,
    chunk_records,
    prepare,
    summary_text,
)
from recall_engine.ingest.reuse import ReusingEmbedder, memo_of, owned_texts
from recall_engine.ingest.sources import SourceItem
from recall_engine.ingest.stop import StoppingEmbedder, check_stop
from recall_engine.ingest.vector_plan import VectorPlan
from recall_engine.ingest.writer import TenantWriters, WriteTicket, writing
from recall_engine.storage.graph_records import GraphWrite, SummaryRecord
from recall_engine.storage.lexical import tokenize
from recall_engine.storage.records import ChunkRecord, DataItemRecord
from recall_engine.storage.tenant import TenantStore
from recall_engine.telemetry.spans import stage

logger = logging.getLogger(__name__)


def _stored_again(store: TenantStore, config: RecallConfig, known: set[str]) -> set[str]:
    """The stored items ``remember()`` of the same content stores again: those whose
    graph extraction failed (a fresh extraction); with sentence vectors on, those
    stored without them (before they existed, or with them off), so remembering the
    data again brings an older store up to date; and those the graph holds without
    a chunk row (a process killed between a retry's removal of its rows and its
    graph commit, or a replica that committed after another had taken its lease
    over and rolled its rows back), so remembering them again completes them. The
    commit replaces them (``TenantStore.commit_ingest``); a failure before or in it
    leaves them as they were, to the next call."""
    if not known:
        return set()
    again = known - store.vectors.data_ids_with_chunks(sorted(known))
    if config.graph_extractor != "none":
        again |= set(store.graph.extraction_failures(sorted(known)))
    if config.sentence_vectors:
        again |= store.vectors.data_ids_without_sentences(sorted(known))
    return again


def ingest(
    store: TenantStore,
    embedder: Embedder,
    config: RecallConfig,
    items: Sequence[SourceItem],
    *,
    dataset_id: str,
    dataset_name: str,
    show_progress: bool | None = None,
    writers: TenantWriters | None = None,
    stop: threading.Event | None = None,
) -> RememberResult:
    """Store ``items`` in ``dataset_name``; blocking (run it in a worker thread).

    ``writers``: the replicas' lease and ledger (``ingest.writer``) when the store
    is shared; the ingest then holds the tenant's writer lease and records its
    items in the ledger. ``stop``: set it from another thread to stop the ingest
    before its commit.

    Raises:
        WriteStopped: ``stop`` was set before the commit (nothing stored).
        WriterBusyError: another replica held the writer lease too long (nothing stored).
        StoreError, EmbeddingError: nothing of this ingest remains in the store.
    """
    observe = remembering(tenant_id=store.tenant_id, dataset_id=dataset_id, items=len(items))
    with gc_paused(), observe as done:  # gc: full collections stall the loop (see gc_pause)
        result = _ingest(
            store,
            embedder,
            config,
            items,
            dataset_id=dataset_id,
            dataset_name=dataset_name,
            show_progress=show_progress,
            writers=writers,
            stop=stop,
        )
        return done(result)  # the ingest's span and metrics


def _ingest(
    store: TenantStore,
    embedder: Embedder,
    config: RecallConfig,
    items: Sequence[SourceItem],
    *,
    dataset_id: str,
    dataset_name: str,
    show_progress: bool | None,
    writers: TenantWriters | None,
    stop: threading.Event | None,
) -> RememberResult:
    embedder = StoppingEmbedder(CheckedEmbedder(embedder, store.index.dimension), stop)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    with stage("remember.chunking"):
        prepared = prepare(items, dataset_id=dataset_id, config=config)
    timings["chunk_s"] = time.perf_counter() - started
    all_ids = [p.data_id for p in prepared]
    with store.write_lock, writing(writers, store) as ticket:
        known = store.graph.document_ids(all_ids)
        retried = sorted(_stored_again(store, config, known))
        known -= set(retried)  # written again: the commit replaces them, a failure keeps them
        fresh = [p for p in prepared if p.data_id not in known]
        skipped = [p.data_id for p in prepared if p.data_id in known]
        sources = [p.item.source_id for p in fresh if p.item.source_id]
        previous = store.graph.documents_by_source(dataset_id, sources)
        replaced = sorted(
            {
                old
                for p in fresh
                if (old := previous.get(p.item.source_id or "")) and old != p.data_id
            }
        )
        now = datetime.now(UTC).isoformat()
        records, items_out = chunk_records(
            fresh, dataset_id=dataset_id, dataset_name=dataset_name, now=now
        )
        new_ids = [p.data_id for p in fresh]
        memo, memo_key = memo_of(store), (dataset_id, embedder.model_id)
        reusing = ReusingEmbedder(embedder, memo.lookup(memo_key, store.index.has_data))
        ticket.pending(dataset_id, [(p.data_id, p.content_hash) for p in fresh])
        try:
            result = _write(
                store,
                reusing,
                config,
                fresh,
                records,
                items_out,
                dataset=(dataset_id, dataset_name, now),
                replaced=[*replaced, *retried],
                show_progress=show_progress,
                timings=timings,
                ticket=ticket,
                stop=stop,
            )
        except BaseException:
            ticket.abandoned(dataset_id, new_ids, stored=retried)
            raise
        ticket.committed(dataset_id, new_ids)
        ticket.forgotten(replaced)
        memo.keep(memo_key, owned_texts(fresh, reusing.served), reusing.served)
    extractor, plan, failures = result
    timings["total_s"] = time.perf_counter() - started
    return RememberResult(
        tenant_id=store.tenant_id,
        dataset_id=dataset_id,
        dataset_name=dataset_name,
        data_ids=all_ids,
        new_data_ids=[p.data_id for p in fresh],
        skipped_data_ids=skipped,
        replaced_data_ids=replaced,
        retried_data_ids=retried,
        extraction={
            data_id: (
                f"failed: {failures[data_id]}"
                if data_id in failures
                else "ok"
                if extractor is not None and data_id not in known
                else "skipped"
            )
            for data_id in all_ids
        },
        chunk_count=len(records),
        entity_count=plan.created_count if plan is not None else 0,
        relation_count=len(plan.resolution.graph.relations) if plan is not None else 0,
        event_count=len(plan.resolution.graph.events) if plan is not None else 0,
        timings=timings,
    )


def _write(
    store: TenantStore,
    embedder: Embedder,
    config: RecallConfig,
    fresh: Sequence[PreparedItem],
    records: Sequence[tuple[ChunkRecord, ChunkDraft]],
    items_out: list[DataItemRecord],
    *,
    dataset: tuple[str, str, str],
    replaced: Sequence[str],
    show_progress: bool | None,
    timings: dict[str, float],
    ticket: WriteTicket,
    stop: threading.Event | None,
) -> tuple[Extractor | None, GraphPlan | None, dict[str, str]]:
    """Embed, extract and commit (unless ``stop`` is set by then);
    the extractor, the graph plan and the items whose extraction failed."""
    dataset_id, dataset_name, now = dataset
    extractor = build_extractor(config) if records else None
    namespace = make_namespace(store.tenant_id, dataset_id)
    vectors, per_chunk, graph, plan, failures = _embed_and_extract(
        store,
        embedder,
        config,
        fresh,
        records,
        extractor=extractor,
        dataset_id=dataset_id,
        namespace=namespace,
        show_progress=show_progress if show_progress is not None else config.show_progress,
        timings=timings,
    )
    # Not computed is stored as such (null), so a later remember() with them on fills them.
    sentences = per_chunk if config.sentence_vectors else None
    items_out = [replace(i, extraction_failure=failures.get(i.id)) for i in items_out]
    t0 = time.perf_counter()
    tokens = [tokenize(draft.lexical_text) for _, draft in records]
    timings["tokenize_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if fresh or replaced:
        check_stop(stop)  # the last point a cancel stops the ingest at; the commit completes
        ticket.check()  # a replica that lost its lease must not commit
        with stage("remember.commit"):
            store.commit_ingest(
                datasets=[(dataset_id, dataset_name, now)],
                items=items_out,
                chunks=[r[0] for r in records],
                vectors=vectors,
                tokens=tokens,
                sentences=sentences,
                replace_data_ids=replaced,
                graph=graph,
            )
    timings["store_s"] = time.perf_counter() - t0
    return extractor, plan, failures


def _embed_and_extract(
    store: TenantStore,
    embedder: Embedder,
    config: RecallConfig,
    fresh: Sequence[PreparedItem],
    records: Sequence[tuple[ChunkRecord, ChunkDraft]],
    *,
    extractor: Extractor | None,
    dataset_id: str,
    namespace: str,
    show_progress: bool | None,
    timings: dict[str, float],
) -> tuple[np.ndarray, list[np.ndarray], GraphWrite | None, GraphPlan | None, dict[str, str]]:
    """Chunk vectors, each chunk's sentence vectors, the graph write when an
    extractor runs, and the items whose extraction failed (data id -> reason).

    An extractor that raises fails the extraction of every item, not the ingest:
    the chunks are stored without a graph and the failure is recorded for a retry.
    """
    vector_plan = VectorPlan.of([d for _, d in records])  # chunks first, then sentences
    texts = vector_plan.texts
    batch = config.embedding_batch_size
    t0 = time.perf_counter()
    if not records:  # nothing new: do not load the model just to embed nothing
        timings["embed_s"] = 0.0
        return np.zeros((0, store.index.dimension), dtype=np.float32), [], None, None, {}

    if extractor is None:
        vectors = embed_all(embedder, texts, batch_size=batch, show_progress=show_progress)
        timings["embed_s"] = time.perf_counter() - t0
        return (*vector_plan.assemble(vectors), None, None, {})
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graph-extract") as pool:
        future = start_extraction(pool, extractor, chunk_inputs(fresh, records, namespace))
        full = len(texts) - len(texts) % batch
        head = embed_all(embedder, texts[:full], batch_size=batch, show_progress=show_progress)
        embed_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        try:
            extractions, extract_s = future.result()
        except Exception as exc:  # the extractor's boundary: the chunks are still worth storing
            logger.warning("graph extraction failed, items stored without a graph: %s", exc)
            reason = f"{type(exc).__name__}: {exc}"[:500]
            tail = embed_all(embedder, texts[full:], batch_size=batch, show_progress=False)
            timings["embed_s"] = embed_s + time.perf_counter() - t1
            vectors = np.concatenate([head.reshape(-1, tail.shape[1]), tail])
            failed = {p.data_id: reason for p in fresh}
            return (*vector_plan.assemble(vectors), None, None, failed)
    timings["extract_wait_s"] = time.perf_counter() - t1
    failures = _chunk_failures(extractions)
    stated = statement_times((r for r, _ in records), {p.data_id: p.item.created_at for p in fresh})
    extractions = [
        stamp(x, stated[x.chunk_id].at, position=stated[x.chunk_id].position) for x in extractions
    ]
    t1 = time.perf_counter()
    draft = draft_graph(
        extractions,
        dataset_id=dataset_id,
        candidates=lambda keys: store.graph.entity_candidates(dataset_id, keys),
    )
    timings["resolve_s"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    tail = embed_all(embedder, texts[full:] + draft.texts, batch_size=batch, show_progress=False)
    embed_s += time.perf_counter() - t1
    n_tail = len(texts) - full
    t1 = time.perf_counter()
    plan = draft.plan(
        tail[n_tail:],
        nearest=lambda queries, types: store.entity_index.nearest(
            queries,
            types,
            dataset_id=dataset_id,
            k=NEAREST_K,
            min_score=DEFAULT_SIMILARITY_THRESHOLD,
        ),
    )
    timings["resolve_s"] += time.perf_counter() - t1
    timings["extract_s"] = extract_s + timings["resolve_s"]
    t1 = time.perf_counter()
    rest = (
        embed_all(embedder, plan.texts, batch_size=batch, show_progress=False)
        if plan.texts
        else np.zeros((0, tail.shape[1]), dtype=np.float32)
    )
    timings["embed_s"] = embed_s + time.perf_counter() - t1
    vectors, per_chunk = vector_plan.assemble(
        np.concatenate([head.reshape(-1, tail.shape[1]), tail[:n_tail]])
    )
    chunk_vectors = {r.id: vectors[i] for i, (r, _) in enumerate(records)}
    summaries = [
        SummaryRecord(
            id=stable_id("summary", p.data_id),
            data_id=p.data_id,
            dataset_id=dataset_id,
            namespace=namespace,
            text=summary_text(p),
        )
        for p in fresh
    ]
    graph = plan.build(
        rest,
        chunk_vectors=chunk_vectors,
        chunk_data={r.id: r.data_id for r, _ in records},
        summaries=summaries,
    )
    return vectors, per_chunk, graph, plan, failures


def _chunk_failures(extractions: Sequence[ChunkExtraction]) -> dict[str, str]:
    """Data id -> reason, for items with a chunk the extractor gave up on."""
    failed: dict[str, list[str]] = {}
    total: dict[str, int] = {}
    for extraction in extractions:
        data_id = extraction.data_id or ""
        total[data_id] = total.get(data_id, 0) + 1
        if extraction.failed is not None:
            failed.setdefault(data_id, []).append(extraction.failed)
    return {
        data_id: f"{len(reasons)} of {total[data_id]} chunk(s): {reasons[0]}"[:500]
        for data_id, reasons in failed.items()
    }
