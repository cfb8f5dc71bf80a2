"""Entity resolution: one node per real-world entity within a namespace.

Entities of one namespace are clustered by these rules, in order:

1. same type and normalised name, or a declared alias with that key (case,
   spacing, punctuation, honorifics and possessives never count);
2. a CONCEPT (the fallback type) joins the one entity of a specific type with
   its name or alias ("Lyon" the CONCEPT and "Lyon" the PLACE; "Acme" and the
   organisation "Acme Corp", whose alias it is);
3. a one-word PERSON or CONCEPT joins the one multi-word PERSON with that
   surname ("Lovelace" -> "Ada Lovelace"); two such people block the merge;
4. optionally, entities of one type (identifiers and dates excluded) whose
   embedded texts (``Entity.embedding_text``: name, type, description) reach a
   cosine similarity threshold, when their names are also linked: people must
   share a name token ("Jane Smith" is not "John Smith"), other types must share
   a token, or one name is a prefix or the initials of the other ("NYC"); the
   numbers in the names must agree ("Python 2" is not "Python 3"). The most
   similar pairs join first, and a join never puts two stored entities in one
   cluster (the store already decided they differ). Only pairs whose names are
   linked are scored (``similarity``), so the work follows the entities, not
   their square.

Entities in different namespaces never merge. In a cluster, an entity already
stored wins (stored ids never change), then a specific type over CONCEPT, then
the longer name, then the first seen. The result rewrites relations, mentions
and events to the canonical ids and drops relations that became self-loops.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from recall_engine.core.graph import (
    IDENTIFIER_TYPES,
    ChunkExtraction,
    Entity,
    EntityType,
    Event,
    GraphExtraction,
    Mention,
    Relation,
    merge_same,
    relation_id,
)
from recall_engine.core.names import normalize_identifier, normalize_name
from recall_engine.graph.similarity import EmbedFn, SimilarityJoin, names_linked

__all__ = ["DEFAULT_SIMILARITY_THRESHOLD", "Resolution", "names_linked", "resolve"]

DEFAULT_SIMILARITY_THRESHOLD = 0.92
"""Calibrated for all-MiniLM-L6-v2 on ``"name (type)"`` texts: "Northwind Labs" /
"Northwind Laboratories" 0.932 and "NYC" / "New York City" 0.944 merge;
"Paris" / "Parisa" (places) 0.891 and "Pride Parade" / "Pride March" 0.914 do not."""


class Resolution(BaseModel):
    """Resolved graph elements, ready to write.

    ``graph.entities`` holds the canonical entities that are new or changed
    (``created_ids``, ``updated_ids``); relations, mentions and events may also
    point at unchanged stored entities. ``id_map`` maps every input entity id,
    stored ones included, to its canonical id.
    """

    model_config = ConfigDict(frozen=True)

    graph: GraphExtraction
    id_map: dict[str, str]
    created_ids: tuple[str, ...] = ()
    updated_ids: tuple[str, ...] = ()
    comparisons: int = 0
    """Entity pairs whose vectors rule 4 scored (a measure of its work)."""


def resolve(
    extraction: GraphExtraction | Sequence[ChunkExtraction],
    *,
    existing: Iterable[Entity] = (),
    embed: EmbedFn | None = None,
    vectors: Mapping[str, np.ndarray] | None = None,
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD,
) -> Resolution:
    """Merge the entities of ``extraction`` among themselves and into ``existing``.

    ``existing`` are entities already stored (from any namespaces; each only
    meets its own). Pass the candidates a store can find cheaply (same names,
    nearest names) rather than a whole large store: rule 4 scores every new
    entity against the entities of its type whose names it could join.

    Rule 4 runs when ``vectors`` (entity id -> unit vector of its
    ``embedding_text``) or ``embed`` is given; ``embed`` fills in the entities
    ``vectors`` lacks, else those sit rule 4 out.

    Raises:
        ValueError: when ``similarity_threshold`` is not in (0, 1], or ``embed``
            returns an array of the wrong shape.
    """
    if not 0.0 < similarity_threshold <= 1.0:
        raise ValueError(f"similarity_threshold must be in (0, 1], got {similarity_threshold}")
    graph = (
        extraction
        if isinstance(extraction, GraphExtraction)
        else GraphExtraction.from_chunks(extraction)
    )
    stored = {e.id: e for e in existing}
    pool: dict[str, Entity] = dict(stored)
    for entity in graph.entities:
        pool[entity.id] = merge_same(pool[entity.id], entity) if entity.id in pool else entity
    order = {eid: i for i, eid in enumerate(pool)}

    by_namespace: dict[str, list[Entity]] = {}
    for entity in pool.values():
        by_namespace.setdefault(entity.namespace, []).append(entity)
    id_map: dict[str, str] = {}
    canonical: dict[str, Entity] = {}
    comparisons = 0
    for entities in by_namespace.values():
        clusters = _UnionFind([e.id for e in entities])
        _join_by_name(entities, clusters)
        _join_concepts(entities, clusters)
        _join_surnames(entities, clusters)
        if embed is not None or vectors is not None:
            similar = SimilarityJoin(embed, vectors or {}, similarity_threshold, stored.keys())
            similar.join(entities, clusters, order)
            comparisons += similar.comparisons
        for members in clusters.groups().values():
            group = [pool[m] for m in members]
            merged = _merge_cluster(group, stored, order)
            canonical[merged.id] = merged
            id_map.update({m: merged.id for m in members})

    created = tuple(eid for eid in canonical if eid not in stored)
    updated = tuple(eid for eid in canonical if eid in stored and canonical[eid] != stored[eid])
    return Resolution(
        graph=GraphExtraction(
            entities=tuple(canonical[eid] for eid in (*created, *updated)),
            relations=_rewrite_relations(graph.relations, id_map),
            events=_rewrite_events(graph.events, id_map),
            mentions=_rewrite_mentions(graph.mentions, id_map),
        ),
        id_map=id_map,
        created_ids=created,
        updated_ids=updated,
        comparisons=comparisons,
    )


class _UnionFind:
    def __init__(self, ids: list[str]) -> None:
        self._parent = {i: i for i in ids}

    def __contains__(self, item: str) -> bool:
        return item in self._parent

    def find(self, item: str) -> str:
        root = item
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[item] != root:
            self._parent[item], item = root, self._parent[item]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[rb] = ra

    def groups(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for item in self._parent:
            out.setdefault(self.find(item), []).append(item)
        return out


def _key(type_: EntityType, name: str) -> tuple[EntityType, str]:
    return type_, normalize_identifier(name) if type_ in IDENTIFIER_TYPES else normalize_name(name)


def _join_by_name(entities: list[Entity], clusters: _UnionFind) -> None:
    first: dict[tuple[EntityType, str], str] = {}
    for entity in entities:
        for name in (entity.name, *entity.aliases):
            key = _key(entity.type, name)
            if not key[1]:
                continue
            if key in first:
                clusters.union(first[key], entity.id)
            else:
                first[key] = entity.id


def _join_concepts(entities: list[Entity], clusters: _UnionFind) -> None:
    specific: dict[str, set[str]] = {}
    for e in entities:
        if e.type is not EntityType.CONCEPT and e.type not in IDENTIFIER_TYPES:
            for key in {e.normalized_name, *(normalize_name(a) for a in e.aliases)}:
                specific.setdefault(key, set()).add(clusters.find(e.id))
    for e in entities:
        roots = specific.get(e.normalized_name)
        if e.type is EntityType.CONCEPT and roots and len(roots) == 1:
            clusters.union(next(iter(roots)), e.id)


def _join_surnames(entities: list[Entity], clusters: _UnionFind) -> None:
    by_surname: dict[str, set[str]] = {}
    for e in entities:
        tokens = e.normalized_name.split()
        if e.type is EntityType.PERSON and len(tokens) > 1:
            by_surname.setdefault(tokens[-1], set()).add(clusters.find(e.id))
    for e in entities:
        if e.type in (EntityType.PERSON, EntityType.CONCEPT) and " " not in e.normalized_name:
            roots = by_surname.get(e.normalized_name)
            if roots and len(roots) == 1:
                clusters.union(next(iter(roots)), e.id)


def _merge_cluster(group: list[Entity], stored: dict[str, Entity], order: dict[str, int]) -> Entity:
    def rank(e: Entity) -> tuple[bool, bool, int, int]:
        return (
            e.id not in stored,
            e.type is EntityType.CONCEPT,
            -len(e.normalized_name.split()),
            order[e.id],
        )

    group = sorted(group, key=rank)
    merged = group[0]
    for other in group[1:]:
        merged = merge_same(merged, other)
    if merged.type is EntityType.CONCEPT:
        specific = {e.type for e in group if e.type is not EntityType.CONCEPT}
        if len(specific) == 1:
            merged = merged.model_copy(update={"type": specific.pop()})
    return merged


def _rewrite_relations(
    relations: Iterable[Relation], id_map: dict[str, str]
) -> tuple[Relation, ...]:
    out: dict[str, Relation] = {}
    for r in relations:
        source, target = id_map.get(r.source_id, r.source_id), id_map.get(r.target_id, r.target_id)
        if source == target:
            continue
        rid = relation_id(r.namespace, source, r.predicate, target, r.chunk_id)
        if rid in out and out[rid].confidence >= r.confidence:
            continue
        out[rid] = r.model_copy(update={"id": rid, "source_id": source, "target_id": target})
    return tuple(out.values())


def _rewrite_events(events: Iterable[Event], id_map: dict[str, str]) -> tuple[Event, ...]:
    return tuple(
        e.model_copy(
            update={"entity_ids": tuple(dict.fromkeys(id_map.get(i, i) for i in e.entity_ids))}
        )
        for e in events
    )


def _rewrite_mentions(mentions: Iterable[Mention], id_map: dict[str, str]) -> tuple[Mention, ...]:
    out: dict[tuple[str, str], Mention] = {}
    for m in mentions:
        eid = id_map.get(m.entity_id, m.entity_id)
        key = (m.chunk_id, eid)
        known = out.get(key)
        if known is None:
            out[key] = m.model_copy(update={"entity_id": eid})
            continue
        # Keep the occurrence found in the text over the implied speaker, else the first.
        first = m if known.start is None and m.start is not None else known
        out[key] = first.model_copy(update={"entity_id": eid, "count": known.count + m.count})
    return tuple(out.values())
