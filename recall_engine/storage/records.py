"""Plain records the stores persist: data items and chunks (without vectors)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from recall_engine.core.models import SourceRef


@dataclass(frozen=True)
class DataItemRecord:
    """One ingested thing (document, file, conversation) inside a dataset."""

    id: str
    dataset_id: str
    dataset_name: str
    name: str
    kind: str
    content_hash: str
    source_id: str | None
    metadata: dict[str, object]
    created_at: str
    chunk_count: int
    extraction_failure: str | None = None
    """Why graph extraction failed for this item (it is stored without its graph,
    and the next remember() of the same content retries it); None when it did not."""

    @property
    def metadata_json(self) -> str:
        return json.dumps(self.metadata, sort_keys=True, default=str)


@dataclass(frozen=True)
class ChunkRecord:
    """One retrieval unit and its provenance."""

    id: str
    data_id: str
    dataset_id: str
    dataset_name: str
    chunk_index: int
    text: str
    document_name: str
    metadata: dict[str, object] = field(default_factory=dict)
    message_ids: tuple[str, ...] = ()
    speaker: str | None = None
    timestamp: str | None = None
    created_at: str = ""

    def source_ref(self) -> SourceRef:
        return SourceRef.trusted(
            data_id=self.data_id,
            chunk_id=self.id,
            chunk_index=self.chunk_index,
            document_name=self.document_name,
            dataset_id=self.dataset_id,
            dataset_name=self.dataset_name,
            message_ids=list(self.message_ids),
        )
