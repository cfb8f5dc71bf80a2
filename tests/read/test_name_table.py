"""Entity names by key (``read.name_table``): the per-snapshot table gives the synonym
pairs and the linked names the rules define, and the structure reader answers only
for entities of its scope."""

from __future__ import annotations

import random

from recall_engine import Document
from recall_engine.core.names import normalize_name
from recall_engine.read.adjacency import adjacency, current_adjacency
from recall_engine.read.linking import name_grams
from recall_engine.read.name_table import NameTable, synonym_pairs
from recall_engine.read.store_reader import StoreReader

WORDS = ["Anna", "Berg", "van", "Lyon", "St.", "Mary's", "Jo", "Ulm", "North", "Bay"]


def by_definition(names: dict[str, str]) -> set[frozenset[str]]:
    """Every pair of distinct ids whose keys are equal or one is a run of whole words
    of the other of at most four words, both keys longer than two characters."""

    def runs(key: str) -> set[str]:
        words = key.split()
        return {
            " ".join(words[i : i + n])
            for n in range(1, min(len(words), 5))
            for i in range(len(words) - n + 1)
        }

    keys = {i: normalize_name(n) for i, n in names.items()}
    return {
        frozenset({a, b})
        for a in names
        for b in names
        if a != b
        and len(keys[a]) > 2
        and len(keys[b]) > 2
        and (keys[a] == keys[b] or keys[b] in runs(keys[a]))
    }


def random_names(rng: random.Random, most_words: int) -> dict[str, str]:
    """Up to 25 entities named by 1 to ``most_words`` words of ``WORDS``."""
    return {
        f"e{i}": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, most_words)))
        for i in range(rng.randint(0, 25))
    }


def test_pairs_follow_the_rule_on_random_names() -> None:
    rng = random.Random(7)
    for _ in range(200):
        names = random_names(rng, 6)
        expected = by_definition(names)
        assert {frozenset(p) for p in synonym_pairs(names)} == expected
        # a table over more entities than the query's pairs the same among them, by
        # each entity's partners in one dataset or by grouping across datasets
        extra = [("x1", "Anna Berg"), ("x2", "Lyon")]
        one = NameTable.build([(i, n, "d") for i, n in [*names.items(), *extra]])
        split = NameTable.build(
            [(i, n, f"d{int(i[1:]) % 3}") for i, n in names.items()]
            + [(i, n, "d0") for i, n in extra]
        )
        for among in (
            one.pairs_among(set(names), one_dataset=True),
            one.pairs_among(set(names)),
            split.pairs_among(set(names)),
        ):
            assert {frozenset(p) for p in among} == expected
            assert all(a != b for a, b in among)


def test_named_follows_the_linking_rule() -> None:
    rng = random.Random(11)
    for _ in range(200):
        names = random_names(rng, 3)
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8))) + "?"
        grams = name_grams(text)
        table = NameTable.build([(i, n, "d") for i, n in [*names.items(), ("x1", "Anna Berg")]])
        expected = {i for i, n in names.items() if normalize_name(n) in grams}
        assert table.named(grams, set(names), {"d"}) == expected  # by name
        many = {"d", *(f"other{i}" for i in range(98))}
        assert table.named(grams, set(names), many) == expected  # by entity


def test_a_name_shared_by_many_datasets_costs_no_more_than_the_entities_asked() -> None:
    many = [(f"e{i}", "Anna Berg" if i % 2 else "Anna", f"d{i // 2}") for i in range(20_000)]
    table = NameTable.build(many)
    assert max(len(p) for p in table.partners.values()) == 1  # within its dataset only
    asked = {"e0", "e1", "e2", "e3"}  # two datasets' "Anna" and "Anna Berg"
    names = {i: n for i, n, _ in many if i in asked}
    assert {frozenset(p) for p in table.pairs_among(asked)} == by_definition(names)
    assert len(by_definition(names)) == 6  # equal names across datasets, and shorter forms


def test_no_pair_for_short_or_unrelated_names() -> None:
    assert synonym_pairs({"1": "Jo", "2": "Jo", "3": "Ulm", "4": "Lyon"}) == []
    assert {frozenset(p) for p in synonym_pairs({"1": "Ulm", "2": "ULM!"})} == {
        frozenset({"1", "2"})
    }


async def test_reader_pairs_only_entities_in_its_scope(engine) -> None:
    await engine.remember(
        Document(text="Grace Hopper met Anita Borg in Boston.", title="a"), dataset_name="a"
    )
    await engine.remember(
        Document(text="Hopper wrote to Borg about Boston.", title="b"), dataset_name="b"
    )
    store = engine.store()
    datasets = await engine.list_datasets()
    every = {row["id"]: row for row in store.entity_index.rows(None)}
    names = {i: row["name"] for i, row in every.items()}
    both = await StoreReader(store, list(store.datasets())).synonym_pairs(list(every))
    assert {frozenset(p) for p in both} == by_definition(names)
    assert any(every[a]["dataset_id"] != every[b]["dataset_id"] for a, b in both)
    for name in ("a", "b"):
        scope = datasets[name]
        found = await StoreReader(store, [scope]).synonym_pairs(list(every))
        inside = {i: n for i, n in names.items() if every[i]["dataset_id"] == scope}
        assert {frozenset(p) for p in found} == by_definition(inside)
    linked = await StoreReader(store, [datasets["b"]]).named_in("Who is Borg?", list(every))
    assert linked == {i for i, n in names.items() if n == "Borg"} and linked
    kept = current_adjacency(store)
    assert kept is not None and kept.names is not None
    await engine.remember(
        Document(text="Anita Borg founded a network.", title="c"), dataset_name="a"
    )
    assert adjacency(store).names is None  # a write makes a new snapshot, worked out anew


def table_fields(table: NameTable) -> tuple:
    return table.key_of, table.by_key, table.shorter, table.partners, table.keys


def test_an_extended_table_equals_one_built_over_every_name() -> None:
    """New names, and known ones moved to the end (an entity updated in place), give
    the table ``build`` gives over the names in that order; the table extended stays
    as it was; a renamed entity asks for a build."""
    rng = random.Random(11)
    for _ in range(300):
        names = random_names(rng, 6)
        datasets = {i: rng.choice("ab") for i in names}
        rows = [(i, n, datasets[i]) for i, n in names.items()]
        cut = rng.randint(0, len(rows))
        first, later = rows[:cut], rows[cut:]
        moved = rng.sample(first, min(len(first), rng.randint(0, 3)))
        added = later + moved
        rng.shuffle(added)
        table = NameTable.build(first)
        before = table_fields(NameTable.build(first))
        grown = table.extended(added)
        again = {row[0] for row in added}
        order = [r for r in first if r[0] not in again] + added
        assert grown is not None and table_fields(grown) == table_fields(NameTable.build(order))
        assert table_fields(table) == before
        assert {frozenset(p) for p in grown.pairs_among(set(names))} >= {
            frozenset(p) for p in table.pairs_among({r[0] for r in first}, one_dataset=False)
        }
    assert NameTable.build([("a", "Anna Berg", "d")]).extended([("a", "Lyon", "d")]) is None
