"""Typed retrieval hits: what the read API and every retriever return.

One union, ``Hit``, of six shapes (chunk, entity, triplet, summary, event,
row). Each carries its score and the provenance it rests on (``sources``, in
rank order), and renders itself as context text with ``text``. One normaliser
(``recall_engine.core.results``) maps hits to ``ResponseGraphEntry``;
``dedupe_sources`` is the one place provenance is deduplicated.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.models import SourceRef
from recall_engine.core.trusted import assemble


class _Hit(BaseModel):
    model_config = ConfigDict(frozen=True)

    score: float = Field(description="Higher is better; the scale depends on the lane.")
    sources: tuple[SourceRef, ...] = Field(
        default=(), description="Provenance: the chunks this hit rests on, best first."
    )
    dataset_id: str | None = None
    dataset_name: str | None = None

    def with_score(self, score: float) -> Self:
        """A copy of this hit with another score (e.g. after fusion or reranking):
        what ``model_copy(update={"score": score})`` builds (a shallow copy, the
        score not validated), without its generic copying (``core.trusted``; a
        graph search rescores ~125 hits per query)."""
        values = {**self.__dict__, "score": score}
        return assemble(type(self), values, {*self.__pydantic_fields_set__, "score"})


class ChunkHit(_Hit):
    """One chunk of a data item."""

    kind: Literal["chunk"] = "chunk"
    chunk_id: str
    data_id: str
    chunk_index: int
    text: str
    document_name: str
    metadata: dict[str, object] = Field(default_factory=dict)
    message_ids: tuple[str, ...] = ()
    speaker: str | None = None
    timestamp: str | None = None

    @property
    def key(self) -> str:
        return self.chunk_id

    @classmethod
    def trusted(
        cls,
        *,
        score: float,
        sources: tuple[SourceRef, ...],
        dataset_id: str | None,
        dataset_name: str | None,
        chunk_id: str,
        data_id: str,
        chunk_index: int,
        text: str,
        document_name: str,
        metadata: dict[str, object],
        message_ids: tuple[str, ...],
        speaker: str | None,
        timestamp: str | None,
    ) -> ChunkHit:
        """The ``ChunkHit`` of these values, built without validation
        (``core.trusted``): each must be of its field's type already, as a stored
        record's are; ``metadata`` is kept, not copied."""
        values = {
            "score": score,
            "sources": sources,
            "dataset_id": dataset_id,
            "dataset_name": dataset_name,
            "kind": "chunk",
            "chunk_id": chunk_id,
            "data_id": data_id,
            "chunk_index": chunk_index,
            "text": text,
            "document_name": document_name,
            "metadata": metadata,
            "message_ids": message_ids,
            "speaker": speaker,
            "timestamp": timestamp,
        }
        return assemble(cls, values, set(_CHUNK_GIVEN))

    def payload(self) -> dict[str, object]:
        """The chunk as results carry it in ``raw``."""
        out: dict[str, object] = {
            "id": self.chunk_id,
            "text": self.text,
            "data_id": self.data_id,
            "chunk_index": self.chunk_index,
            "document_name": self.document_name,
            "dataset_id": self.dataset_id,
            "dataset_name": self.dataset_name,
            "metadata": dict(self.metadata),
        }
        if self.message_ids:
            out["message_ids"] = list(self.message_ids)
        if self.speaker is not None:
            out["speaker"] = self.speaker
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp
        return out


# What ``ChunkHit(...)`` counts as given when every field but the kind is passed.
_CHUNK_GIVEN = frozenset(ChunkHit.model_fields) - {"kind"}


class EntityRef(BaseModel):
    """An entity as an end of a triplet."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    type: str


class EntityHit(_Hit):
    """A named thing in the graph."""

    kind: Literal["entity"] = "entity"
    id: str
    name: str
    type: str
    description: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return self.id

    @property
    def text(self) -> str:
        extra = f": {self.description}" if self.description else ""
        return f"{self.name} ({self.type}){extra}"


class TripletHit(_Hit):
    """One edge ``source -[predicate]-> target`` with the chunk that states it."""

    kind: Literal["triplet"] = "triplet"
    id: str = Field(description="The relation id.")
    source: EntityRef
    predicate: str
    target: EntityRef
    raw_predicate: str | None = None
    context: str = ""
    confidence: float | None = None
    time_text: str | None = None
    timestamp: str | None = None
    chunk_id: str | None = None
    data_id: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """Triplets are deduplicated by (source, predicate, target)."""
        return (self.source.id, self.predicate, self.target.id)

    @property
    def text(self) -> str:
        context = f" ({self.context})" if self.context else ""
        return f"{self.source.name} --[{self.predicate}]--> {self.target.name}{context}"


class SummaryHit(_Hit):
    """A summary of one data item."""

    kind: Literal["summary"] = "summary"
    id: str
    data_id: str
    text: str
    method: str = ""

    @property
    def key(self) -> str:
        return self.id


class EventHit(_Hit):
    """Something that happened at a resolved time, stated by one chunk."""

    kind: Literal["event"] = "event"
    id: str
    text: str
    time: str | None = Field(default=None, description="ISO 8601 start of the resolved time.")
    chunk_id: str | None = None
    data_id: str | None = None

    @property
    def key(self) -> str:
        return self.id


class RowHit(_Hit):
    """One row of a Cypher query."""

    kind: Literal["row"] = "row"
    values: dict[str, object]

    @property
    def key(self) -> str:
        return repr(sorted(self.values.items()))

    @property
    def text(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in self.values.items())


Hit = Annotated[
    ChunkHit | EntityHit | TripletHit | SummaryHit | EventHit | RowHit,
    Field(discriminator="kind"),
]
AnyHit = ChunkHit | EntityHit | TripletHit | SummaryHit | EventHit | RowHit


def dedupe_sources(hits: Iterable[AnyHit]) -> list[SourceRef]:
    """Every hit's sources in rank order, each chunk once."""
    seen: set[str] = set()
    out: list[SourceRef] = []
    for hit in hits:
        for ref in hit.sources:
            if ref.chunk_id not in seen:
                seen.add(ref.chunk_id)
                out.append(ref)
    return out
