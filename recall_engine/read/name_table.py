"""Entity names by their comparison key, once per graph snapshot.

A graph search asks two things of the names of the thousand or so entities its
candidate passages mention, mostly the same from one query to the next: which of
them the question names (``read.linking``'s rule: a normalised name equal to a
run of the question's words) and which are synonyms of each other, the walk's
cheap form of HippoRAG's similar names: normalised names equal, or one a run of
whole words of the other ("Obama" / "Barack Obama", runs of at most
``LONGEST_RUN`` words; one-word names of one or two letters are left out, as
initials match too much). ``NameTable`` keeps, once per snapshot
(``read.adjacency``), every entity's normalised name, each name's shorter forms and
each entity's synonyms within its dataset, so a query links and pairs its own
entities by lookups; what it costs is bounded by the entities a query asks about,
not by how many entities of the tenant share a name.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from recall_engine.core.names import normalize_name

LONGEST_RUN = 4
"""Longest word run of a name that counts as a shorter form of it."""


@lru_cache(maxsize=65536)
def _word_runs(key: str, longest: int) -> tuple[str, ...]:
    """The runs of whole words of ``key`` shorter than it, of at most ``longest``
    words, each once."""
    words = key.split()
    return tuple(
        dict.fromkeys(
            " ".join(words[i : i + n])
            for n in range(1, min(len(words), longest + 1))
            for i in range(len(words) - n + 1)
        )
    )


@dataclass(frozen=True)
class NameTable:
    """Each entity's normalised name, each name's shorter forms, and each entity's
    synonyms within its own dataset."""

    key_of: dict[str, str]
    """Entity id -> its normalised name."""
    by_key: dict[tuple[str, str], list[str]]
    """(dataset id, normalised name) -> the ids of its entities with that name."""
    shorter: dict[str, tuple[str, ...]]
    """Normalised name -> the word runs of it that are names of entities (both longer
    than two characters); names without one are left out."""
    partners: dict[str, tuple[str, ...]]
    """Entity id -> its synonyms in its own dataset (entity resolution merges a
    dataset's equal names, so these lists stay short however many datasets share a
    name); entities without one are left out."""
    keys: frozenset[str] = frozenset()
    """Every normalised name longer than two characters."""
    longest: int = LONGEST_RUN
    """The most words a shorter form may have."""
    _longer: dict[str, tuple[str, ...]] | None = field(default=None, compare=False, repr=False)
    """Word run -> the ``keys`` it is a run of (every run, not only names), made on
    the first ``extended``: which longer names a new name is a shorter form of."""

    @classmethod
    def build(
        cls, names: Iterable[tuple[str, str, str]], *, longest: int = LONGEST_RUN
    ) -> NameTable:
        """The table of ``names``: (entity id, name, dataset id) triples."""
        key_of: dict[str, str] = {}
        by_key: dict[tuple[str, str], list[str]] = {}  # (dataset, name) -> entity ids
        for entity_id, name, dataset_id in names:
            key = key_of[entity_id] = normalize_name(name)
            by_key.setdefault((dataset_id, key), []).append(entity_id)
        keys = {key for _, key in by_key if len(key) > 2}
        shorter: dict[str, tuple[str, ...]] = {}
        for key in keys:
            if runs := tuple(r for r in _word_runs(key, longest) if r in keys):
                shorter[key] = runs
        partners: dict[str, tuple[str, ...]] = {}
        for group in by_key:
            _pair_group(group, by_key, shorter, partners)
        return cls(key_of, by_key, shorter, partners, frozenset(keys), longest)

    def extended(self, names: Iterable[tuple[str, str, str]]) -> NameTable | None:
        """This table with ``names`` ((entity id, name, dataset id) triples) added
        after its own, an id it holds already moving to the end of its name's list
        (an entity updated in place): equal to ``build`` over the names in that
        order, without going over the others. This table is left as it is.

        Returns:
            The new table; None when one of ``names`` renames an entity of this table
            (build it again).
        """
        longest = self.longest
        key_of, by_key, shorter = dict(self.key_of), dict(self.by_key), dict(self.shorter)
        longer, keys = dict(self._runs_index()), set(self.keys)
        groups: dict[tuple[str, str], None] = {}  # changed members, by group
        fresh: list[str] = []  # names new to the table
        for entity_id, name, dataset_id in names:
            key = normalize_name(name)
            if key_of.get(entity_id, key) != key:
                return None
            group = (dataset_id, key)
            members = by_key[group] = [i for i in by_key.get(group, ()) if i != entity_id]
            members.append(entity_id)
            key_of[entity_id] = key
            groups[group] = None
            if len(key) > 2 and key not in keys:
                keys.add(key)
                fresh.append(key)
                for run in _word_runs(key, longest):
                    longer[run] = (*longer.get(run, ()), key)
        for key in fresh:  # its own shorter forms, and it as one of longer names'
            for name_key in (key, *longer.get(key, ())):
                if runs := tuple(r for r in _word_runs(name_key, longest) if r in keys):
                    shorter[name_key] = runs
        partners = dict(self.partners)
        for dataset_id, key in list(groups):  # their members pair with longer names' too
            for name_key in longer.get(key, ()):
                groups[(dataset_id, name_key)] = None
        for group in groups:
            _pair_group(group, by_key, shorter, partners)
        table = NameTable(key_of, by_key, shorter, partners, frozenset(keys), longest)
        object.__setattr__(table, "_longer", longer)
        return table

    def _runs_index(self) -> dict[str, tuple[str, ...]]:
        if self._longer is not None:
            return self._longer
        longer: dict[str, list[str]] = {}
        for key in self.keys:
            for run in _word_runs(key, self.longest):
                longer.setdefault(run, []).append(key)
        index = {run: tuple(keys) for run, keys in longer.items()}
        object.__setattr__(self, "_longer", index)  # made once, the same by any thread
        return index

    def named(
        self, grams: Collection[str], entity_ids: Collection[str], datasets: Collection[str]
    ) -> set[str]:
        """Those of ``entity_ids`` (of ``datasets``) whose normalised name is one of
        ``grams``: looked up by name, or, when the datasets are many, by entity."""
        if len(grams) * len(datasets) < len(entity_ids):
            by_key = self.by_key
            return {
                e
                for d in datasets
                for g in grams
                for e in by_key.get((d, g), ())
                if e in entity_ids
            }
        key_of = self.key_of
        return {e for e in entity_ids if key_of.get(e) in grams}

    def pairs_among(
        self, entity_ids: Collection[str], *, one_dataset: bool = False
    ) -> list[tuple[str, str]]:
        """The synonym pairs with both ends among ``entity_ids`` (distinct ids; a set
        is fastest), each undirected pair at least once.

        Args:
            entity_ids: the entities to pair.
            one_dataset: whether they all belong to one dataset: then each one's
                partners are looked up; else they are grouped by name here, so the
                work stays bounded by the entities asked about.

        Returns:
            (entity id, synonym's entity id) pairs.
        """
        if one_dataset:
            partners = self.partners
            wanted = entity_ids if isinstance(entity_ids, set | frozenset) else set(entity_ids)
            paired = partners.keys() & wanted  # a C-level pass over the smaller side
            return [(a, b) for a in paired for b in partners[a] if b in wanted]
        groups: dict[str, list[str]] = {}
        key_of = self.key_of
        for entity_id in entity_ids:
            key = key_of.get(entity_id)
            if key is not None and len(key) > 2:
                groups.setdefault(key, []).append(entity_id)
        pairs: list[tuple[str, str]] = []
        for key, ids in groups.items():
            if len(ids) > 1:
                pairs += [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
            for run in self.shorter.get(key, ()):
                if others := groups.get(run):
                    pairs += [(a, b) for a in ids for b in others]
        return pairs


def _pair_group(
    group: tuple[str, str],
    by_key: Mapping[tuple[str, str], list[str]],
    shorter: Mapping[str, tuple[str, ...]],
    partners: dict[str, tuple[str, ...]],
) -> None:
    """Set the synonyms of each entity of ``group`` (dataset id, name) in ``partners``:
    the others of its name, then those of its shorter forms, in that dataset."""
    dataset_id, key = group
    if len(key) <= 2:
        return
    ids = by_key.get(group, ())
    shorter_ids = tuple(
        b for run in shorter.get(key, ()) for b in by_key.get((dataset_id, run), ())
    )
    for a in ids:
        if found := tuple(b for b in ids if b != a) + shorter_ids:
            partners[a] = found
        else:
            partners.pop(a, None)


def synonym_pairs(names: Mapping[str, str], *, longest: int = LONGEST_RUN) -> list[tuple[str, str]]:
    """Pairs of entity ids whose names are synonyms (the module docstring's rule).

    Args:
        names: entity id -> name.
        longest: the most words a shorter form may have.

    Returns:
        (entity id, synonym's entity id) pairs, each undirected pair at least once.
    """
    table = NameTable.build(((i, n, "") for i, n in names.items()), longest=longest)
    return table.pairs_among(set(names))
