"""The ingest pipeline: source items -> chunks -> vectors -> one atomic commit."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from recall_engine.config import RecallConfig
from recall_engine.embedding import Embedder
from recall_engine.ingest.chunking import ChunkDraft, chunk_item
from recall_engine.ingest.sources import SourceItem
from recall_engine.ingest.validation import stable_id
from recall_engine.models import RememberResult
from recall_engine.storage.lexical import tokenize
from recall_engine.storage.records import ChunkRecord, DataItemRecord
from recall_engine.storage.tenant import TenantStore

PROGRESS_MIN_CHUNKS = 512


@dataclass
class PreparedItem:
    item: SourceItem
    data_id: str
    content_hash: str
    drafts: list[ChunkDraft]


def content_hash(item: SourceItem) -> str:
    """A hash of what an item says (not of where it came from)."""
    if item.messages is not None:
        body = [
            [m.id, m.speaker, m.text, m.timestamp.isoformat() if m.timestamp else None]
            for m in item.messages
        ]
        payload = json.dumps(["conversation", body], ensure_ascii=False)
    else:
        payload = json.dumps(["text", item.text], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def prepare(
    items: Sequence[SourceItem], *, dataset_id: str, config: RecallConfig
) -> list[PreparedItem]:
    """Chunk and identify items; duplicates within the input are kept once."""
    prepared: dict[str, PreparedItem] = {}
    for item in items:
        digest = content_hash(item)
        data_id = stable_id("data", dataset_id, digest)
        if data_id in prepared:
            continue
        drafts = chunk_item(item, chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap)
        prepared[data_id] = PreparedItem(item, data_id, digest, drafts)
    return list(prepared.values())


def embed_all(
    embedder: Embedder, texts: Sequence[str], *, batch_size: int, show_progress: bool | None
) -> np.ndarray:
    """Embed in batches, with a progress bar on long ingests at a terminal."""
    if show_progress is None:
        show_progress = sys.stderr.isatty() and len(texts) >= PROGRESS_MIN_CHUNKS
    if not show_progress or len(texts) <= batch_size:
        return embedder.embed(texts, batch_size=batch_size)
    from tqdm import tqdm

    step = batch_size * 4
    parts = []
    with tqdm(total=len(texts), unit="chunk", desc="embedding") as bar:
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            parts.append(embedder.embed(batch, batch_size=batch_size))
            bar.update(len(batch))
    return np.concatenate(parts)


def ingest(
    store: TenantStore,
    embedder: Embedder,
    config: RecallConfig,
    items: Sequence[SourceItem],
    *,
    dataset_id: str,
    dataset_name: str,
    show_progress: bool | None = None,
) -> RememberResult:
    """Store ``items`` in ``dataset_name``; blocking (run it in a worker thread).

    Raises:
        StoreError, EmbeddingError: nothing of this ingest remains in the store.
    """
    timings: dict[str, float] = {}
    started = time.perf_counter()
    prepared = prepare(items, dataset_id=dataset_id, config=config)
    timings["chunk_s"] = time.perf_counter() - started
    all_ids = [p.data_id for p in prepared]
    with store.write_lock:
        known = store.graph.document_ids()
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
        records, items_out = _records(
            fresh, dataset_id=dataset_id, dataset_name=dataset_name, now=now
        )
        t0 = time.perf_counter()
        if records:
            vectors = embed_all(
                embedder,
                [r[1].embed_text for r in records],
                batch_size=config.embedding_batch_size,
                show_progress=show_progress if show_progress is not None else config.show_progress,
            )
        else:  # nothing new: do not load the model just to embed nothing
            vectors = np.zeros((0, store.index.dimension), dtype=np.float32)
        timings["embed_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        tokens = [tokenize(draft.lexical_text) for _, draft in records]
        timings["tokenize_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if fresh or replaced:
            store.commit_ingest(
                datasets=[(dataset_id, dataset_name, now)],
                items=items_out,
                chunks=[r[0] for r in records],
                vectors=vectors,
                tokens=tokens,
                replace_data_ids=replaced,
            )
        timings["store_s"] = time.perf_counter() - t0
    timings["total_s"] = time.perf_counter() - started
    return RememberResult(
        tenant_id=store.tenant_id,
        dataset_id=dataset_id,
        dataset_name=dataset_name,
        data_ids=all_ids,
        new_data_ids=[p.data_id for p in fresh],
        skipped_data_ids=skipped,
        replaced_data_ids=replaced,
        chunk_count=len(records),
        timings=timings,
    )


def _records(
    prepared: Sequence[PreparedItem], *, dataset_id: str, dataset_name: str, now: str
) -> tuple[list[tuple[ChunkRecord, ChunkDraft]], list[DataItemRecord]]:
    records: list[tuple[ChunkRecord, ChunkDraft]] = []
    items: list[DataItemRecord] = []
    for p in prepared:
        item = p.item
        items.append(
            DataItemRecord(
                id=p.data_id,
                dataset_id=dataset_id,
                dataset_name=dataset_name,
                name=item.name,
                kind=item.kind,
                content_hash=p.content_hash,
                source_id=item.source_id,
                metadata=item.metadata,
                created_at=item.created_at.isoformat() if item.created_at else now,
                chunk_count=len(p.drafts),
            )
        )
        for index, draft in enumerate(p.drafts):
            chunk = ChunkRecord(
                id=stable_id("chunk", p.data_id, str(index)),
                data_id=p.data_id,
                dataset_id=dataset_id,
                dataset_name=dataset_name,
                chunk_index=index,
                text=draft.text,
                document_name=item.name,
                metadata=item.metadata,
                message_ids=draft.message_ids,
                speaker=draft.speaker,
                timestamp=draft.timestamp,
                created_at=now,
            )
            records.append((chunk, draft))
    return records, items
