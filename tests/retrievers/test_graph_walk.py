"""The passage-entity walk: second hops through specific entities, synonymy edges."""

from retrievers.graph_walk import synonym_pairs, walk_scores


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
