"""An ingest's items before anything is stored: chunked and identified, and the
records, extractor inputs and summaries made from them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from recall_engine.config import RecallConfig
from recall_engine.core.metadata import TURNS_KEY
from recall_engine.core.validation import stable_id
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.stage import parse_time
from recall_engine.graph.summaries import extractive_summary
from recall_engine.ingest.chunking import ChunkDraft, chunk_item
from recall_engine.ingest.sources import SourceItem
from recall_engine.storage.records import ChunkRecord, DataItemRecord


@dataclass
class PreparedItem:
    """One item to store: its id, content hash and chunk drafts."""

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
        if not config.sentence_vectors:
            drafts = [replace(d, embed_sentences=()) for d in drafts]
        prepared[data_id] = PreparedItem(item, data_id, digest, drafts)
    return list(prepared.values())


def summary_text(p: PreparedItem) -> str:
    """The extractive summary of an item: of its turns, or of its text."""
    if p.item.messages is not None:
        return extractive_summary(turns=[(m.speaker, m.text) for m in p.item.messages])
    return extractive_summary(p.item.text or "")


def chunk_inputs(
    fresh: Sequence[PreparedItem],
    records: Sequence[tuple[ChunkRecord, ChunkDraft]],
    namespace: str,
) -> list[ChunkInput]:
    """What the extractor reads: a turn's own words (speaker and time apart), or
    a document chunk dated by its document."""
    return [
        ChunkInput(
            chunk_id=record.id,
            text=draft.extract_text if draft.extract_text is not None else record.text,
            speaker=record.speaker,
            timestamp=parse_time(record.timestamp, what=f"chunk {record.id} timestamp"),
            dataset_id=record.dataset_id,
            data_id=record.data_id,
            namespace=namespace,
        )
        for record, draft in records
    ]


def chunk_records(
    prepared: Sequence[PreparedItem], *, dataset_id: str, dataset_name: str, now: str
) -> tuple[list[tuple[ChunkRecord, ChunkDraft]], list[DataItemRecord]]:
    """The chunk records (with their drafts) and the item records of ``prepared``."""
    records: list[tuple[ChunkRecord, ChunkDraft]] = []
    items: list[DataItemRecord] = []
    for p in prepared:
        item = p.item
        shared, per_message = split_turn_metadata(item.metadata)
        items.append(
            DataItemRecord(
                id=p.data_id,
                dataset_id=dataset_id,
                dataset_name=dataset_name,
                name=item.name,
                kind=item.kind,
                content_hash=p.content_hash,
                source_id=item.source_id,
                metadata=shared,
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
                metadata=_of_message(shared, per_message, draft.message_ids),
                message_ids=draft.message_ids,
                speaker=draft.speaker,
                timestamp=draft.timestamp,
                created_at=now,
            )
            records.append((chunk, draft))
    return records, items


def split_turn_metadata(
    metadata: dict[str, object],
) -> tuple[dict[str, object], dict[str, dict[str, object]]]:
    """An item's metadata less its per-message map (``TURNS_KEY``), and that map
    (message id -> the message's own metadata; empty when there is none)."""
    turns = metadata.get(TURNS_KEY)
    if turns is None:
        return metadata, {}
    shared = {k: v for k, v in metadata.items() if k != TURNS_KEY}
    if not isinstance(turns, dict):
        return shared, {}
    return shared, {str(k): v for k, v in turns.items() if isinstance(v, dict)}


def _of_message(
    shared: dict[str, object],
    per_message: dict[str, dict[str, object]],
    message_ids: Sequence[str],
) -> dict[str, object]:
    """A chunk's metadata: its item's, updated with its message's own entry."""
    own = per_message.get(message_ids[0]) if message_ids and per_message else None
    return {**shared, **own} if own else shared
