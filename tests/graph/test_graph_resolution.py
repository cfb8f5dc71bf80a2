"""Entity resolution: one node per real-world entity, never across namespaces."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine.graph import (
    ChunkInput,
    Entity,
    EntityType,
    GraphExtraction,
    RuleBasedExtractor,
    resolve,
)

T = EntityType
LOVELACE = [
    "Dr. Ada Lovelace wrote the first program.",
    "Ada Lovelace worked with Charles Babbage.",
    "Scholars still read Lovelace's notes today.",
]


def _extract(texts: Sequence[str], namespace: str = "t/ds") -> GraphExtraction:
    extractor = RuleBasedExtractor()
    return GraphExtraction.from_chunks(
        [
            extractor.extract_chunk(
                ChunkInput(chunk_id=f"{namespace}#{i}", text=t, namespace=namespace)
            )
            for i, t in enumerate(texts)
        ]
    )


def test_honorific_full_name_and_surname_merge() -> None:
    raw = _extract(LOVELACE)
    assert (
        len({e.id for e in raw.entities if "Lovelace" in e.name}) == 2
    )  # "Ada Lovelace", "Lovelace"
    result = resolve(raw)
    people = [e for e in result.graph.entities if "lovelace" in e.normalized_name]
    assert len(people) == 1
    ada = people[0]
    assert ada.name == "Ada Lovelace" and ada.type is T.PERSON
    assert {"Dr. Ada Lovelace", "Lovelace"} <= set(ada.aliases)
    chunks = {m.chunk_id for m in result.graph.mentions if m.entity_id == ada.id}
    assert chunks == {"t/ds#0", "t/ds#1", "t/ds#2"}
    assert all(result.id_map[e.id] == ada.id for e in raw.entities if "Lovelace" in e.name)


def test_surname_shared_by_two_people_does_not_merge() -> None:
    result = resolve(
        _extract(["Ada Lovelace met Byron Lovelace.", "Scholars read Lovelace's notes."])
    )
    assert len([e for e in result.graph.entities if "lovelace" in e.normalized_name]) == 3


def test_namespaces_never_merge() -> None:
    a, b = _extract(LOVELACE, "t1/ds"), _extract(LOVELACE, "t2/ds")
    result = resolve(
        GraphExtraction(entities=a.entities + b.entities, mentions=a.mentions + b.mentions)
    )
    people = [e for e in result.graph.entities if e.normalized_name == "ada lovelace"]
    assert sorted(e.namespace for e in people) == ["t1/ds", "t2/ds"]
    for mention in result.graph.mentions:
        assert mention.chunk_id.split("#")[0] == next(
            e.namespace for e in result.graph.entities if e.id == mention.entity_id
        )


def test_concept_joins_the_specific_type() -> None:
    ns = "t/ds"
    concept = Entity.create("Lyon", T.CONCEPT, namespace=ns)
    place = Entity.create("Lyon", T.PLACE, namespace=ns)
    result = resolve(GraphExtraction(entities=(concept, place)))
    assert [e.type for e in result.graph.entities] == [T.PLACE]


def test_declared_aliases_merge() -> None:
    ns = "t/ds"
    ibm = Entity.create(
        "International Business Machines", T.ORGANIZATION, namespace=ns, aliases=["IBM"]
    )
    short = Entity.create("IBM", T.ORGANIZATION, namespace=ns)
    result = resolve(GraphExtraction(entities=(short, ibm)))
    assert len(result.graph.entities) == 1
    assert result.graph.entities[0].name == "International Business Machines"


def test_resolves_against_stored_entities_keeping_their_ids() -> None:
    stored = resolve(_extract(LOVELACE[:1])).graph.entities
    ada = next(e for e in stored if e.name == "Ada Lovelace")
    later = _extract(
        ["Scholars read Lovelace's notes on the engine.", "Ada Lovelace and Mary Somerville."]
    )
    result = resolve(later, existing=stored)
    assert ada.id in result.updated_ids  # gained the alias "Lovelace"
    assert {r.source_id for r in result.graph.relations} | {
        r.target_id for r in result.graph.relations
    } >= {ada.id}
    assert all(m.entity_id != result.id_map.get("nope") for m in result.graph.mentions)
    assert "Mary Somerville" in {
        result.graph.entities[i].name for i in range(len(result.graph.entities))
    }
    assert ada.id not in result.created_ids


def test_relations_rewritten_and_self_loops_dropped() -> None:
    raw = _extract(["Ada Lovelace praised Lovelace's own notes and met Charles Babbage."])
    result = resolve(raw)
    ids = {e.id for e in result.graph.entities}
    for relation in result.graph.relations:
        assert relation.source_id != relation.target_id
        assert {relation.source_id, relation.target_id} <= ids


def _fake_embed(texts: Sequence[str]) -> np.ndarray:
    """Names sharing their first three letters point the same way."""
    rows = []
    for text in texts:
        seed = sum(ord(c) for c in text.lower()[:3])
        vector = np.random.default_rng(seed).normal(size=16)
        rows.append(vector / np.linalg.norm(vector))
    return np.asarray(rows, dtype=np.float32)


def test_embedding_merge_within_type_only() -> None:
    ns = "t/ds"
    entities = (
        Entity.create("Kubernetes", T.PRODUCT, namespace=ns),
        Entity.create("Kube", T.PRODUCT, namespace=ns),
        Entity.create("Kubrick", T.PERSON, namespace=ns),
    )
    result = resolve(
        GraphExtraction(entities=entities), embed=_fake_embed, similarity_threshold=0.99
    )
    names = sorted(e.name for e in result.graph.entities)
    assert names == ["Kubernetes", "Kubrick"]
    assert resolve(GraphExtraction(entities=entities)).graph.entities == entities  # optional


def test_bad_threshold_and_embedder() -> None:
    with pytest.raises(ValueError, match="similarity_threshold"):
        resolve(GraphExtraction(), similarity_threshold=1.5)
    entities = (
        Entity.create("A b", T.PRODUCT, namespace="n"),
        Entity.create("C d", T.PRODUCT, namespace="n"),
    )
    with pytest.raises(ValueError, match="shape"):
        resolve(GraphExtraction(entities=entities), embed=lambda texts: np.zeros((1, 4)))


def test_resolution_is_deterministic() -> None:
    raw = _extract(LOVELACE)
    assert resolve(raw) == resolve(raw)
