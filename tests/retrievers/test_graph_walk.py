"""The passage-entity walk: second hops through specific entities, synonymy edges."""

import random

import numpy as np
from scipy import sparse

from recall_engine.read.name_table import synonym_pairs
from retrievers.graph_walk import walk_scores


def test_walk_reaches_a_passage_through_a_shared_entity() -> None:
    mentioned = {"p1": ["a"], "p2": ["a", "b"], "p3": ["c"]}
    scores = walk_scores(["p1", "p2", "p3"], mentioned, [], {"p1": 1.0}, {})
    assert scores["p2"] > 0
    assert scores["p3"] == 0
    assert scores["p1"] > scores["p2"]


def test_relations_join_entities() -> None:
    mentioned = {"p1": ["a"], "p2": ["b"]}
    alone = walk_scores(["p1", "p2"], mentioned, [], {"p1": 1.0}, {})
    joined = walk_scores(["p1", "p2"], mentioned, [("a", "b")], {"p1": 1.0}, {})
    assert alone["p2"] == 0
    assert joined["p2"] > 0


def test_entity_seeds_lift_the_passages_that_mention_them() -> None:
    mentioned = {"p1": ["a"], "p2": ["b"]}
    scores = walk_scores(["p1", "p2"], mentioned, [], {"p1": 0.1, "p2": 0.1}, {"b": 1.0})
    assert scores["p2"] > scores["p1"]


def test_no_seed_gives_zero() -> None:
    assert walk_scores(["p1"], {"p1": ["a"]}, [], {}, {}) == {"p1": 0.0}


def test_synonyms_by_word_runs() -> None:
    pairs = synonym_pairs({"1": "Barack Obama", "2": "Obama", "3": "Ulm", "4": "Jo"})
    assert {frozenset(p) for p in pairs} == {frozenset({"1", "2"})}


def scipy_walk(passages, mentioned, relations, passage_seeds, entity_seeds, damping=0.5):
    """The walk as first written, over a scipy CSR transition matrix: the oracle."""
    index = {p: i for i, p in enumerate(passages)}
    rows, cols = [], []
    for passage in passages:
        for entity in mentioned.get(passage, ()):
            rows.append(index[passage])
            cols.append(index.setdefault(f"e:{entity}", len(index)))
    for a, b in relations:
        ia, ib = index.get(f"e:{a}"), index.get(f"e:{b}")
        if ia is not None and ib is not None and ia != ib:
            rows.append(ia)
            cols.append(ib)
    n = len(index)
    restart = np.zeros(n)
    for passage, weight in passage_seeds.items():
        restart[index[passage]] += max(weight, 0.0)
    for entity, weight in entity_seeds.items():
        if f"e:{entity}" in index:
            restart[index[f"e:{entity}"]] += max(weight, 0.0)
    restart /= restart.sum()
    r, c = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    both = (np.concatenate([r, c]), np.concatenate([c, r]))
    adjacency = sparse.coo_matrix((np.ones(2 * r.size), both), shape=(n, n)).tocsr()
    adjacency.sum_duplicates()
    adjacency.data[:] = 1.0
    out_weight = np.asarray(adjacency.sum(axis=1)).ravel()
    dangling = out_weight == 0
    inverse = np.divide(1.0, out_weight, out=np.zeros(n), where=~dangling)
    transition = (sparse.diags(inverse) @ adjacency).T.tocsr()
    rank = restart.copy()
    for _ in range(40):
        flow = transition @ rank + rank[dangling].sum() * restart
        new = (1 - damping) * restart + damping * flow
        done = float(np.abs(new - rank).sum()) < 1e-7
        rank = new
        if done:
            break
    return {p: float(rank[i]) for p, i in index.items() if i < len(passages)}


def test_walk_scores_are_the_scipy_walks_to_the_last_bit() -> None:
    rng = random.Random(19)
    for _ in range(200):
        passages = [f"p{i}" for i in range(rng.randint(1, 120))]
        names = [f"x{i}" for i in range(rng.randint(1, 60))]
        mentioned = {p: rng.sample(names, rng.randint(0, min(4, len(names)))) for p in passages}
        relations = [(rng.choice(names), rng.choice(names)) for _ in range(rng.randint(0, 50))]
        seeds = {p: rng.random() for p in rng.sample(passages, min(len(passages), 30))}
        entity_seeds = {rng.choice(names): rng.random() for _ in range(3)}
        for damping in (0.5, 0.85):
            got = walk_scores(passages, mentioned, relations, seeds, entity_seeds, damping=damping)
            assert got == scipy_walk(passages, mentioned, relations, seeds, entity_seeds, damping)
