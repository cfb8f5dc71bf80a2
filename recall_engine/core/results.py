"""The one normaliser: typed hits become results, for both APIs.

``recall()``'s tag stage maps every search type's hits and answers to
``ResponseGraphEntry`` here, so result shapes and provenance
(``metadata["sources"]``, deduplicated, in rank order) are the same everywhere;
the tenant API maps the same hits to HydraDB's ``VectorStoreChunk``,
``SourceInfo`` and ``PathTriplet`` here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from recall_engine.core.hits import AnyHit, ChunkHit, TripletHit, dedupe_sources
from recall_engine.core.hydra import (
    Entity,
    PathTriplet,
    RelationEvidence,
    SourceInfo,
    VectorStoreChunk,
)
from recall_engine.core.metadata import ADDITIONAL_KEY, SOURCE_KEY, TENANT_KEY
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.search_types import SearchTypeName


def hit_raw(hit: AnyHit) -> dict[str, object]:
    """What a result carries in ``raw`` for one hit."""
    if isinstance(hit, ChunkHit):
        return hit.payload()
    return hit.model_dump(mode="json", exclude={"sources"})


def _hit_metadata(hit: AnyHit) -> dict[str, object]:
    if isinstance(hit, ChunkHit):
        metadata = {k: v for k, v in hit.payload().items() if k not in ("text", "metadata", "id")}
        metadata.update(hit.metadata)
        metadata["chunk_id"] = hit.chunk_id
    else:
        metadata = {"hit_kind": hit.kind}
    metadata["sources"] = [s.model_dump() for s in hit.sources]
    return metadata


def item_entries(
    hits: list[AnyHit], *, kind: str, search_type: SearchTypeName
) -> list[ResponseGraphEntry]:
    """One result per hit, best first."""
    return [
        ResponseGraphEntry(
            text=hit.text,
            kind=kind,
            search_type=search_type,
            dataset_id=hit.dataset_id,
            dataset_name=hit.dataset_name,
            metadata=_hit_metadata(hit),
            raw=hit_raw(hit),
            score=hit.score,
        )
        for hit in hits
    ]


def single_dataset(hits: list[AnyHit]) -> tuple[str | None, str | None]:
    """The one dataset every hit comes from, or (None, None)."""
    datasets = {(h.dataset_id, h.dataset_name) for h in hits}
    return next(iter(datasets)) if len(datasets) == 1 else (None, None)


def context_entry(
    hits: list[AnyHit], context: str, *, kind: str, search_type: SearchTypeName
) -> ResponseGraphEntry:
    """The context of an answering search type, returned instead of an answer."""
    dataset_id, dataset_name = single_dataset(hits)
    return ResponseGraphEntry(
        text=context,
        kind=kind,
        search_type=search_type,
        dataset_id=dataset_id,
        dataset_name=dataset_name,
        metadata={
            "sources": [s.model_dump() for s in dedupe_sources(hits)],
            "answer_mode": "context_only",
        },
        raw=[hit_raw(h) for h in hits],
    )


# HydraDB's shapes (the tenant API)


def source_of(metadata: Mapping[str, object]) -> dict[str, Any]:
    found = metadata.get(SOURCE_KEY)
    return dict(found) if isinstance(found, Mapping) else {}


def _dict(value: object) -> dict[str, object]:
    return dict(value) if isinstance(value, Mapping) else {}


def to_chunk(hit: ChunkHit, *, score: float | None = None) -> VectorStoreChunk:
    source = source_of(hit.metadata)
    return VectorStoreChunk(
        chunk_uuid=hit.chunk_id,
        source_id=str(source.get("source_id") or hit.data_id),
        chunk_content=hit.text,
        source_type=str(source.get("type") or ""),
        source_upload_time=str(source.get("uploaded_at") or ""),
        source_title=str(source.get("title") or hit.document_name or ""),
        source_last_updated_time=str(source.get("uploaded_at") or ""),
        relevancy_score=hit.score if score is None else score,
        document_metadata=_dict(hit.metadata.get(ADDITIONAL_KEY)),
        tenant_metadata=_dict(hit.metadata.get(TENANT_KEY)),
    )


def to_sources(hits: Iterable[ChunkHit]) -> list[SourceInfo]:
    """One ``SourceInfo`` per source, in the order its first chunk ranks."""
    out: dict[str, SourceInfo] = {}
    for hit in hits:
        source = source_of(hit.metadata)
        source_id = str(source.get("source_id") or hit.data_id)
        if source_id in out:
            continue
        out[source_id] = SourceInfo(
            id=source_id,
            title=str(source.get("title") or hit.document_name or ""),
            type=str(source.get("type") or ""),
            description=str(source.get("description") or ""),
            url=str(source.get("url") or ""),
            timestamp=str(source.get("timestamp") or source.get("uploaded_at") or ""),
            tenant_metadata=_dict(hit.metadata.get(TENANT_KEY)),
            document_metadata=_dict(hit.metadata.get(ADDITIONAL_KEY)),
        )
    return list(out.values())


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def to_triplet(edge: TripletHit) -> PathTriplet:
    confidence = edge.confidence if edge.confidence is not None else 0.8
    return PathTriplet(
        source=Entity(name=edge.source.name, type=edge.source.type, entity_id=edge.source.id),
        relation=RelationEvidence(
            canonical_predicate=edge.predicate,
            raw_predicate=edge.raw_predicate or edge.predicate,
            context=edge.context or "",
            confidence=min(1.0, max(0.0, float(confidence))),
            temporal_details=edge.time_text,
            timestamp=_when(edge.timestamp),
            relationship_id=edge.id,
            chunk_id=edge.chunk_id,
            source_entity_id=edge.source.id,
            target_entity_id=edge.target.id,
        ),
        target=Entity(name=edge.target.name, type=edge.target.type, entity_id=edge.target.id),
    )


def source_time(metadata: Mapping[str, object]) -> float | None:
    """Epoch seconds of a source's own timestamp (else its upload time)."""
    source = source_of(metadata)
    for key in ("timestamp", "uploaded_at"):
        when = _when(str(source.get(key) or ""))
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return when.timestamp()
    return None
