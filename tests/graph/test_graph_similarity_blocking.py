"""Rule 4 scores only the pairs whose names could join, and joins exactly the
pairs an all-pairs comparison would (oracle: every pair scored, then the name guard)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from recall_engine.graph import Entity, EntityType
from recall_engine.graph.resolution import DEFAULT_SIMILARITY_THRESHOLD
from recall_engine.graph.similarity import SimilarityJoin, names_linked

T = EntityType
NS = "t/ds"
WORDS = ["north", "wind", "labs", "new", "york", "city", "river", "bank", "of", "the", "art"]


def _entities(rng: random.Random, n: int, type_: EntityType) -> list[Entity]:
    out: dict[str, Entity] = {}
    while len(out) < n:
        tokens = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.2:
            tokens = ["".join(t[0] for t in tokens)]  # an acronym of some other name
        if rng.random() < 0.2:
            tokens.append(str(rng.randint(1, 3)))
        if rng.random() < 0.2:
            tokens[-1] = tokens[-1] + rng.choice(["s", "ern", "x"])  # prefix of another
        entity = Entity.create(" ".join(tokens).title(), type_, namespace=NS)
        out.setdefault(entity.id, entity)
    return list(out.values())


def _vectors(rng: random.Random, entities: list[Entity]) -> dict[str, np.ndarray]:
    """A few directions with small noise: many pairs pass the threshold."""
    gen = np.random.default_rng(rng.randint(0, 10**6))
    bases = gen.normal(size=(4, 16))
    out = {}
    for e in entities:
        v = bases[rng.randrange(4)] + gen.normal(scale=0.1, size=16)
        out[e.id] = (v / np.linalg.norm(v)).astype(np.float32)
    return out


def _all_pairs(join: SimilarityJoin, reps: list[Entity], vectors) -> set[tuple[str, str]]:
    out = set()
    for i, a in enumerate(reps):
        for j, b in enumerate(reps):
            if i == j or (a.id in join.stored and b.id in join.stored):
                continue
            score = float(vectors[a.id] @ vectors[b.id])
            if score >= DEFAULT_SIMILARITY_THRESHOLD and names_linked(a, b):
                out.add(tuple(sorted((a.id, b.id))))
    return out


@pytest.mark.parametrize(("seed", "type_"), [(1, T.ORGANIZATION), (2, T.PLACE), (3, T.PERSON)])
def test_blocked_pairs_equal_all_pairs(seed: int, type_: EntityType) -> None:
    rng = random.Random(seed)
    reps = _entities(rng, 150, type_)
    vectors = _vectors(rng, reps)
    stored = {e.id for e in reps[:40]}
    join = SimilarityJoin(None, vectors, DEFAULT_SIMILARITY_THRESHOLD, stored)
    order = {e.id: i for i, e in enumerate(reps)}
    found = join._pairs(reps, order)
    expected = _all_pairs(join, reps, vectors)
    assert len(expected) > 20  # the case is not trivially empty
    assert {tuple(sorted((a.id, b.id))) for *_, a, b in found} == expected
    for _, _, _, a, b in found:  # a new entity first; a new-new pair in order
        assert a.id not in stored
        assert b.id in stored or order[a.id] < order[b.id]


def test_only_linked_names_are_scored() -> None:
    """Distinct one-word names share nothing: nothing to score, however many."""
    reps = [Entity.create(w, T.PLACE, namespace=NS) for w in _distinct_words(400)]
    vectors = {e.id: np.eye(1, 8, dtype=np.float32)[0] for e in reps}
    join = SimilarityJoin(None, vectors, DEFAULT_SIMILARITY_THRESHOLD, ())
    assert join._pairs(reps, {e.id: i for i, e in enumerate(reps)}) == []
    assert join.comparisons == 0  # all pairs would be 400 * 400


def _distinct_words(n: int) -> list[str]:
    """Words no two of which share a prefix relation or initials."""
    rng = random.Random(5)
    out: set[str] = set()
    while len(out) < n:
        out.add("q" + "".join(rng.choice("bcdfghjklmnpr") for _ in range(6)) + "z")
    return sorted(out)
