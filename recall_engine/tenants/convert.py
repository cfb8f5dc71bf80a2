"""How a HydraDB source is stored on the engine's chunks, and how chunks and
relations come back out as HydraDB shapes.

Every chunk of a source carries, in its metadata: ``hydra_source`` (source id,
title, type, description, url, timestamp, upload time, forceful relations),
``tenant_metadata``, ``additional_metadata`` and, for memories with a time to
live, ``expires_at`` (epoch seconds).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

import regex

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import ChunkHit, TripletHit
from recall_engine.core.validation import check_name
from recall_engine.tenants.models import (
    Entity,
    PathTriplet,
    RelationEvidence,
    SourceInfo,
    VectorStoreChunk,
)

SOURCE_KEY = "hydra_source"
TENANT_KEY = "tenant_metadata"
ADDITIONAL_KEY = "additional_metadata"
KNOWLEDGE: Literal["kb"] = "kb"
MEMORIES: Literal["mem"] = "mem"

_UNSAFE = regex.compile(r"[^\p{L}\p{N} .@:+-]|\.\.")
_CONTROL = regex.compile(r"[\p{Cc}\p{Cs}]")
_HASHED = regex.compile(r"\.[0-9a-f]{32}$")
MAX_ID_LENGTH = 100


def _checked(raw: object, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_ID_LENGTH:
        raise InvalidInputError(
            f"{what} must be 1-{MAX_ID_LENGTH} printable characters, got {str(raw)[:40]!r}."
        )
    if _CONTROL.search(raw):
        raise InvalidInputError(
            f"{what} {raw[:40]!r} contains a control character or a lone surrogate; "
            "pass printable characters only."
        )
    return raw


def _readable(raw: str) -> str:
    return _UNSAFE.sub("-", raw.strip()).strip(" .-@:+")[:60] or "id"


def safe_name(raw: str, *, what: str) -> str:
    """The engine name (tenant store or dataset suffix) of a HydraDB id, injectively.

    An id that is a valid engine name (letters, digits, space and ``._@:+-``,
    starting with a letter or digit, no ``..``) is its own name, unless it ends
    in ``.`` and 32 hex digits: that shape is reserved for every other id, which
    becomes a readable form plus the first 32 hex digits (128 bits) of its
    SHA-256. So two distinct ids never share a name.

    Raises:
        InvalidInputError: empty, longer than 100 characters, or control characters.
    """
    raw = _checked(raw, what)
    try:
        name = check_name(raw, what=what)
    except InvalidInputError:
        name = ""
    if name and not _HASHED.search(name):
        return name
    return f"{_readable(raw)}.{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:32]}"


def legacy_name(raw: str) -> str:
    """The name a store or dataset got before ids mapped injectively (a valid
    name itself, else a readable form plus 10 hex digits of its SHA-256): what
    a registry row written before then still points at."""
    try:
        return check_name(raw, what="id")
    except InvalidInputError:
        pass
    readable = _UNSAFE.sub("-", raw.strip()).strip(" .-@:+")[:80] or "id"
    return f"{readable}.{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:10]}"


def dataset_name(collection: str, sub_name: str) -> str:
    """The engine dataset of a collection in a sub-tenant, from the sub-tenant's
    engine name (``TenantRegistry.sub_tenant_name``)."""
    return f"{collection}:{sub_name}"


def source_of(metadata: Mapping[str, Any]) -> dict[str, Any]:
    found = metadata.get(SOURCE_KEY)
    return dict(found) if isinstance(found, Mapping) else {}


def _dict(value: Any) -> dict[str, Any]:
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


def source_time(metadata: Mapping[str, Any]) -> float | None:
    """Epoch seconds of a source's own timestamp (else its upload time)."""
    source = source_of(metadata)
    for key in ("timestamp", "uploaded_at"):
        when = _when(str(source.get(key) or ""))
        if when is not None:
            if when.tzinfo is None:
                from datetime import UTC

                when = when.replace(tzinfo=UTC)
            return when.timestamp()
    return None
