"""The graph's value types: what extractors produce and what a store writes.

Every element carries the namespace it belongs to (tenant + dataset) and the chunk
it came from, so a store can delete exactly what a forgotten chunk supported. Ids
are deterministic: the same input always yields the same ids, and re-extracting a
chunk yields the same elements again (idempotent upserts).

An entity's id is derived from ``(namespace, type, normalized_name)`` when it is
first extracted. Resolution may later fold it into another entity; the canonical
entity keeps the id it was first stored with, so stored ids never change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.names import normalize_identifier, normalize_name


class EntityType(StrEnum):
    """The kinds of node; the identifier kinds (EMAIL .. ID) carry ``identifier``."""

    PERSON = "PERSON"
    ORGANIZATION = "ORGANIZATION"
    PLACE = "PLACE"
    PRODUCT = "PRODUCT"
    PROJECT = "PROJECT"
    EVENT = "EVENT"
    WORK = "WORK"  # books, films, songs, papers: quoted titles
    DATE = "DATE"
    CONCEPT = "CONCEPT"  # the fallback when nothing more specific is known
    EMAIL = "EMAIL"
    URL = "URL"
    ERROR_CODE = "ERROR_CODE"
    ID = "ID"


IDENTIFIER_TYPES = frozenset(
    {EntityType.EMAIL, EntityType.URL, EntityType.ERROR_CODE, EntityType.ID, EntityType.DATE}
)

_SEP = "\x1f"  # a separator no name contains, so ("a b", "c") and ("a", "b c") differ


def stable_id(prefix: str, *parts: str) -> str:
    """A deterministic id: ``prefix`` + 32 hex digits of sha1 over ``parts``."""
    digest = hashlib.sha1(_SEP.join(parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{digest[:32]}"


def entity_id(namespace: str, type_: EntityType | str, normalized_name: str) -> str:
    """The id a new entity gets: stable for the same namespace, type and name."""
    return stable_id("ent", namespace, str(type_), normalized_name)


def relation_id(
    namespace: str, source_id: str, predicate: str, target_id: str, chunk_id: str
) -> str:
    """One id per (triple, chunk): the same fact stated in two chunks is two edges,
    so forgetting one chunk leaves the other's support in place."""
    return stable_id("rel", namespace, source_id, predicate, target_id, chunk_id)


def event_id(namespace: str, chunk_id: str, index: int) -> str:
    """Events are numbered by sentence within their chunk."""
    return stable_id("evt", namespace, chunk_id, str(index))


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Entity(_Frozen):
    """A named thing. ``aliases`` holds every other surface form seen for it."""

    id: str
    name: str = Field(description="Display name, honorifics and possessives removed.")
    normalized_name: str
    type: EntityType
    namespace: str
    identifier: str | None = Field(default=None, description="Email, URL, code or ISO date.")
    description: str = ""
    aliases: tuple[str, ...] = ()
    first_seen: datetime | None = Field(default=None, description="Earliest chunk timestamp.")
    last_seen: datetime | None = Field(default=None, description="Latest chunk timestamp.")

    @classmethod
    def create(
        cls,
        name: str,
        type_: EntityType,
        *,
        namespace: str,
        identifier: str | None = None,
        description: str = "",
        aliases: Iterable[str] = (),
        seen: datetime | None = None,
    ) -> Entity:
        """Build an entity with its derived id and normalised name.

        Raises:
            ValueError: when ``name`` normalises to nothing.
        """
        key = normalize_identifier if type_ in IDENTIFIER_TYPES else normalize_name
        normalized = key(name)
        if not normalized:
            raise ValueError(f"entity name {name!r} has no letters or digits")
        return cls(
            id=entity_id(namespace, type_, normalized),
            name=name,
            normalized_name=normalized,
            type=type_,
            namespace=namespace,
            identifier=identifier,
            description=description,
            aliases=tuple(sorted({a for a in aliases if a and a != name})),
            first_seen=seen,
            last_seen=seen,
        )

    def embedding_text(self) -> str:
        """The text to embed for entity search: name, type and description."""
        base = f"{self.name} ({self.type.value.lower()})"
        return f"{base}: {self.description}" if self.description else base


class Relation(_Frozen):
    """A directed edge ``source -[predicate]-> target`` stated in one chunk."""

    id: str
    source_id: str
    target_id: str
    predicate: str = Field(description="Canonical snake_case predicate, e.g. works_for.")
    raw_predicate: str = Field(description="The words as written, e.g. 'has worked at'.")
    context: str = Field(description="The sentence, readable on its own.")
    confidence: float = Field(ge=0.0, le=1.0)
    time_text: str | None = Field(default=None, description="As written: 'last week'.")
    timestamp: datetime | None = Field(default=None, description="time_text resolved.")
    time_granularity: str | None = Field(default=None, description="day, week, month, year.")
    chunk_id: str
    namespace: str
    valid_from: datetime | None = Field(
        default=None, description="When it was stated (naive UTC): message, document or ingest."
    )
    valid_until: datetime | None = Field(
        default=None, description="When a later statement replaced it; None while current."
    )
    superseded_by: str | None = Field(default=None, description="The replacing relation's id.")
    superseded_by_chunk: str | None = Field(default=None, description="Its chunk id.")
    family: str | None = Field(
        default=None,
        description="The aspect it holds one value of (home, job, ...); None: never superseded.",
    )
    sentence_start: int | None = Field(
        default=None,
        description="Where its sentence starts in the chunk: a document's statements in order.",
    )

    def embedding_text(self, source_name: str, target_name: str) -> str:
        """The text to embed for relation search: ``source predicate target: context``."""
        predicate = self.predicate.replace("_", " ")
        return f"{source_name} {predicate} {target_name}: {self.context}"


class Event(_Frozen):
    """Something that happened at a time, stated in one chunk."""

    id: str
    text: str = Field(description="The sentence, prefixed by its speaker in a conversation.")
    time: datetime
    time_text: str | None = Field(default=None, description="None when time is the message's.")
    time_granularity: str = Field(default="day", description="day, week, month, year.")
    entity_ids: tuple[str, ...] = ()
    chunk_id: str
    namespace: str
    valid_from: datetime | None = Field(
        default=None,
        description="Known since (naive UTC): its time when the text states one not later "
        "than the statement, else the statement's time (message, document or ingest).",
    )


class Mention(_Frozen):
    """Chunk -> entity: one per (chunk, entity), with the first occurrence."""

    chunk_id: str
    entity_id: str
    surface: str = Field(description="The text as it appeared (or the speaker's name).")
    start: int | None = Field(default=None, description="None when implicit (the speaker).")
    end: int | None = None
    count: int = Field(default=1, ge=1, description="Occurrences in the chunk.")


class NameCandidate(_Frozen):
    """A sentence-initial capitalised word the rules cannot tell from an ordinary
    word ("Lovelace's notes ..."): set aside by the extractor, and made a mention
    only when the dataset knows an entity of that name (see ``stage``)."""

    entity: Entity
    mention: Mention


class ChunkExtraction(_Frozen):
    """Everything extracted from one chunk."""

    chunk_id: str
    namespace: str
    data_id: str | None = None
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    mentions: tuple[Mention, ...] = ()
    candidates: tuple[NameCandidate, ...] = ()
    """Not graph elements yet: promoted (or dropped) before resolution."""
    failed: str | None = None
    """Why the extractor gave up on this chunk (the extraction is then empty)."""

    @property
    def is_empty(self) -> bool:
        return not (self.entities or self.relations or self.events or self.mentions)


class GraphExtraction(_Frozen):
    """Many chunks' extractions pooled: entities deduplicated by id."""

    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    events: tuple[Event, ...] = ()
    mentions: tuple[Mention, ...] = ()

    @classmethod
    def from_chunks(cls, chunks: Sequence[ChunkExtraction]) -> GraphExtraction:
        """Pool chunk extractions; entities with one id are merged (aliases, seen range)."""
        entities: dict[str, Entity] = {}
        for chunk in chunks:
            for entity in chunk.entities:
                known = entities.get(entity.id)
                entities[entity.id] = entity if known is None else merge_same(known, entity)
        return cls(
            entities=tuple(entities.values()),
            relations=tuple(r for c in chunks for r in c.relations),
            events=tuple(e for c in chunks for e in c.events),
            mentions=tuple(m for c in chunks for m in c.mentions),
        )


def merge_same(keep: Entity, other: Entity) -> Entity:
    """Fold ``other`` into ``keep``: union of aliases, widest seen range, first
    non-empty identifier and description. ``keep``'s id, name and type win."""
    names = {*keep.aliases, *other.aliases, other.name} - {keep.name}
    return keep.model_copy(
        update={
            "aliases": tuple(sorted(names)),
            "identifier": keep.identifier or other.identifier,
            "description": keep.description or other.description,
            "first_seen": _min_time(keep.first_seen, other.first_seen),
            "last_seen": _max_time(keep.last_seen, other.last_seen),
        }
    )


def _min_time(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    try:
        return min(a, b)
    except TypeError:  # naive vs aware: keep the first rather than guess a zone
        return a


def _max_time(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    try:
        return max(a, b)
    except TypeError:
        return a


def name_key(type_: EntityType, name: str) -> str:
    """The resolution key of a name for an entity of ``type_``."""
    return normalize_identifier(name) if type_ in IDENTIFIER_TYPES else normalize_name(name)


def lookup_keys(entity: Entity) -> set[str]:
    """Keys under which resolution may need this entity: its name, aliases, and
    a multi-word person's surname (so "Lovelace" finds "Ada Lovelace")."""
    keys = {entity.normalized_name, *(name_key(entity.type, a) for a in entity.aliases)}
    tokens = entity.normalized_name.split()
    if entity.type is EntityType.PERSON and len(tokens) > 1:
        keys.add(tokens[-1])
    return {k for k in keys if k}
