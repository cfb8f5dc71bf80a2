"""Entity resolution by embedding similarity (rule 4) and the ingest's stage around it:
the threshold against real MiniLM figures, the name guards, stored neighbours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from recall_engine.graph import ChunkInput, Entity, EntityType, GraphExtraction, resolve
from recall_engine.graph.resolution import DEFAULT_SIMILARITY_THRESHOLD, names_linked
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.stage import draft_graph
from recall_engine.storage.vector_index import VectorIndex, dict_keys

T = EntityType
NS = "t/ds"


def _same_vector(texts: Sequence[str]) -> np.ndarray:
    """Every text points the same way: only the name guards can keep entities apart."""
    return np.tile(np.eye(1, 8, dtype=np.float32), (len(texts), 1))


def _names(result) -> list[str]:
    return sorted(e.name for e in result.graph.entities)


def test_threshold_against_minilm(onnx_minilm) -> None:
    """The figures behind DEFAULT_SIMILARITY_THRESHOLD (0.92, on "name (type)"):
    true merges score 0.93-0.95, the near misses of different things 0.74-0.93."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return onnx_minilm.embed(list(texts))

    def merged(a: str, b: str, type_: EntityType) -> bool:
        pair = (Entity.create(a, type_, namespace=NS), Entity.create(b, type_, namespace=NS))
        return len(resolve(GraphExtraction(entities=pair), embed=embed).graph.entities) == 1

    assert merged("Northwind Labs", "Northwind Laboratories", T.ORGANIZATION)  # 0.932
    assert merged("NYC", "New York City", T.PLACE)  # 0.944, initials
    assert not merged("Paris", "Parisa", T.PLACE)  # 0.891
    assert not merged("Pride Parade", "Pride March", T.EVENT)  # 0.914
    assert not merged("John Smith", "Jane Smith", T.PERSON)  # 0.741
    assert not merged("Python 2", "Python 3", T.PRODUCT)  # 0.926, but the numbers differ
    vectors = embed(["Northwind Labs (organization)", "Northwind Laboratories (organization)"])
    assert float(vectors[0] @ vectors[1]) >= DEFAULT_SIMILARITY_THRESHOLD


@pytest.mark.parametrize(
    ("a", "b", "type_", "linked"),
    [
        ("Northwind Labs", "Northwind Laboratories", T.ORGANIZATION, True),
        ("NYC", "New York City", T.PLACE, True),
        ("MIT", "Massachusetts Institute of Technology", T.ORGANIZATION, True),
        ("Midwest", "Midwestern", T.CONCEPT, True),
        ("hiking", "camping", T.CONCEPT, False),
        ("Spider-Man", "Spider-Man 2", T.WORK, False),
        ("John Smith", "Jane Smith", T.PERSON, True),  # a shared token: the vectors decide
        ("Paris", "Parisa", T.PERSON, False),  # people need a shared token, not a prefix
        ("Jon", "John", T.PERSON, False),
    ],
)
def test_names_linked(a: str, b: str, type_: EntityType, linked: bool) -> None:
    pair = Entity.create(a, type_, namespace=NS), Entity.create(b, type_, namespace=NS)
    assert names_linked(*pair) is linked


def test_identical_vectors_still_need_linked_names_and_one_type() -> None:
    entities = (
        Entity.create("Caroline", T.PERSON, namespace=NS),
        Entity.create("Melanie", T.PERSON, namespace=NS),
        Entity.create("Melanie Smith", T.PERSON, namespace=NS),
        Entity.create("Northwind Labs", T.ORGANIZATION, namespace=NS),
        Entity.create("Northwind", T.PLACE, namespace=NS),
        Entity.create("ERR-1", T.ERROR_CODE, namespace=NS, identifier="ERR-1"),
        Entity.create("ERR-1 x", T.ERROR_CODE, namespace=NS, identifier="ERR-1 x"),
    )
    result = resolve(GraphExtraction(entities=entities), embed=_same_vector)
    assert _names(result) == [
        "Caroline",
        "ERR-1",
        "ERR-1 x",
        "Melanie Smith",
        "Northwind",
        "Northwind Labs",
    ]


def test_two_stored_entities_never_merge_through_a_new_one() -> None:
    labs = Entity.create("Northwind Labs", T.ORGANIZATION, namespace=NS)
    traders = Entity.create("Northwind Traders", T.ORGANIZATION, namespace=NS)
    new = Entity.create("Northwind", T.ORGANIZATION, namespace=NS)
    result = resolve(GraphExtraction(entities=(new,)), existing=(labs, traders), embed=_same_vector)
    assert result.id_map[new.id] in {labs.id, traders.id}
    assert result.id_map[labs.id] == labs.id and result.id_map[traders.id] == traders.id
    assert not result.created_ids


def test_precomputed_vectors_are_used_and_missing_ones_sit_out() -> None:
    a = Entity.create("Northwind Labs", T.ORGANIZATION, namespace=NS)
    b = Entity.create("Northwind Laboratories", T.ORGANIZATION, namespace=NS)
    c = Entity.create("Northwind Lab", T.ORGANIZATION, namespace=NS)
    one = np.eye(1, 8, dtype=np.float32)[0]
    result = resolve(GraphExtraction(entities=(a, b, c)), vectors={a.id: one, b.id: one})
    assert _names(result) == ["Northwind Lab", "Northwind Labs"]  # the first seen wins


def _chunk(text: str, i: int, namespace: str = NS) -> ChunkInput:
    return ChunkInput(chunk_id=f"{namespace}#{i}", text=text, namespace=namespace)


def test_plan_merges_with_stored_neighbours_of_its_dataset_only() -> None:
    """A new entity joins the stored one the vector mirror finds in its dataset and
    type; the same neighbour in another dataset is never offered."""
    extractor = RuleBasedExtractor()
    stored = Entity.create("Northwind Labs", T.ORGANIZATION, namespace=NS)
    mirror = VectorIndex(8, dict_keys)
    one = np.eye(1, 8, dtype=np.float32)
    rows = [
        {"id": stored.id, "dataset_id": "ds", "name": stored.name, "type": "ORGANIZATION"},
        {"id": "ent_other", "dataset_id": "other", "name": stored.name, "type": "ORGANIZATION"},
        {"id": "ent_place", "dataset_id": "ds", "name": "Northwind", "type": "PLACE"},
    ]
    mirror.add(rows, np.vstack([one, one, one]))
    draft = draft_graph(
        [extractor.extract_chunk(_chunk("Grace Hopper worked for Northwind Laboratories.", 0))],
        dataset_id="ds",
        candidates=lambda keys: [stored] if "northwind labs" in keys else [],
    )
    assert "Northwind Laboratories (organization)" in draft.texts
    vectors = np.vstack([one[0] if "Northwind" in t else np.eye(1, 8, 3)[0] for t in draft.texts])

    def nearest(queries: np.ndarray, types: Sequence[str]):
        found = mirror.nearest(queries, types, dataset_id="ds", k=5, min_score=0.92)
        assert {row["id"] for row, _ in found} == {stored.id}
        return found

    plan = draft.plan(vectors, nearest=nearest)
    graph = plan.resolution.graph
    assert {e.name for e in graph.entities} == {"Grace Hopper", "Northwind Labs"}
    labs = next(e for e in graph.entities if e.name == "Northwind Labs")
    assert labs.id == stored.id and "Northwind Laboratories" in labs.aliases
    assert plan.resolution.updated_ids == (stored.id,)
    assert {r.target_id for r in graph.relations} == {stored.id}
    # Only the relation still needs a vector: Grace Hopper's came with the draft and
    # the stored entity's text did not change.
    assert plan.texts == [plan.relation_texts[0]]
    write = plan.build(
        np.ones((1, 8), dtype=np.float32),
        chunk_vectors={f"{NS}#0": one[0]},
        chunk_data={f"{NS}#0": "doc"},
        summaries=[],
    )
    assert write.vector_rows[0].vectors.shape == (1, 8)  # Grace Hopper, from the draft


def test_mirror_nearest_respects_score_type_and_k() -> None:
    mirror = VectorIndex(2, dict_keys)
    rows = [
        {"id": f"e{i}", "dataset_id": "ds", "name": f"n{i}", "type": t}
        for i, t in enumerate(["PLACE", "PLACE", "PLACE", "PERSON"])
    ]
    vectors = np.asarray([[1, 0], [0.96, 0.28], [0, 1], [1, 0]], dtype=np.float32)
    mirror.add(rows, vectors)
    query = np.asarray([[1, 0]], dtype=np.float32)
    found = mirror.nearest(query, ["PLACE"], dataset_id="ds", k=5, min_score=0.9)
    assert [row["id"] for row, _ in found] == ["e0", "e1"]
    assert [
        r["id"] for r, _ in mirror.nearest(query, ["PLACE"], dataset_id="ds", k=1, min_score=0.9)
    ] == ["e0"]
    assert mirror.nearest(query, ["PLACE"], dataset_id="nope", k=5, min_score=0.0) == []
    mirror.remove(ids=["e0"])
    assert [
        r["id"] for r, _ in mirror.nearest(query, ["PLACE"], dataset_id="ds", k=5, min_score=0.9)
    ] == ["e1"]
