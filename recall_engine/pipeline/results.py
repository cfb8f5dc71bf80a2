"""The tag stage: typed hits and answers become ``ResponseGraphEntry`` results.

The one normaliser: every search type's output goes through here, so result
shapes and provenance (``metadata["sources"]``, deduplicated, in rank order)
are the same everywhere.
"""

from __future__ import annotations

from typing import Any

from recall_engine.core.hits import AnyHit, ChunkHit, dedupe_sources
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.search_types import SearchType


def hit_raw(hit: AnyHit) -> Any:
    """What a result carries in ``raw`` for one hit."""
    if isinstance(hit, ChunkHit):
        return hit.payload()
    return hit.model_dump(mode="json", exclude={"sources"})


def _hit_metadata(hit: AnyHit) -> dict[str, Any]:
    if isinstance(hit, ChunkHit):
        metadata = {k: v for k, v in hit.payload().items() if k not in ("text", "metadata", "id")}
        metadata.update(hit.metadata)
        metadata["chunk_id"] = hit.chunk_id
    else:
        metadata = {"hit_kind": hit.kind}
    metadata["sources"] = [s.model_dump() for s in hit.sources]
    return metadata


def item_entries(
    hits: list[AnyHit], *, kind: str, search_type: SearchType
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
    hits: list[AnyHit], context: str, *, kind: str, search_type: SearchType
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
