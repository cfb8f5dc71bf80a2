"""Entity names by their comparison key, once per graph snapshot.

A graph search asks two things of the names of the thousand or so entities its
candidate passages mention, mostly the same from one query to the next: which of
them the question names (``read.linking``'s rule: a normalised name equal to a
run of the question's words) and which are synonyms of each other, the walk's
cheap form of HippoRAG's similar names: normalised names equal, or one a run of
whole words of the other ("Obama" / "Barack Obama", runs of at most
``LONGEST_RUN`` words; one-word names of one or two letters are left out, as
initials match too much). ``NameTable`` works both out once for every entity of
a snapshot (``read.adjacency``), so a query only looks its entities up.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
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
    """Entities by normalised name, and each entity's synonyms."""

    by_key: dict[str, list[str]]
    """Normalised name -> the ids of the entities with that name."""
    partners: dict[str, tuple[str, ...]]
    """Entity id -> its synonyms: the others with its normalised name and those
    whose name is a word run of its own (a pair is listed under its longer name,
    and under both when the names are equal); entities without one are left out."""

    @classmethod
    def build(cls, names: Iterable[tuple[str, str]], *, longest: int = LONGEST_RUN) -> NameTable:
        """The table of ``names``: (entity id, name) pairs."""
        by_key: dict[str, list[str]] = {}
        for entity_id, name in names:
            by_key.setdefault(normalize_name(name), []).append(entity_id)
        partners: dict[str, tuple[str, ...]] = {}
        for key, ids in by_key.items():
            if len(key) <= 2:
                continue
            shorter = [
                b for run in _word_runs(key, longest) if len(run) > 2 for b in by_key.get(run, ())
            ]
            if len(ids) == 1 and not shorter:
                continue
            for a in ids:
                if found := tuple(b for b in ids if b != a) + tuple(shorter):
                    partners[a] = found
        return cls(by_key, partners)

    def named(self, grams: Iterable[str], entity_ids: Collection[str]) -> set[str]:
        """Those of ``entity_ids`` whose normalised name is one of ``grams``."""
        return {e for g in grams for e in self.by_key.get(g, ()) if e in entity_ids}

    def pairs_among(self, entity_ids: Collection[str]) -> list[tuple[str, str]]:
        """The synonym pairs with both ends among ``entity_ids`` (a set is fastest),
        each undirected pair at least once."""
        partners = self.partners
        return [(a, b) for a in entity_ids for b in partners.get(a, ()) if b in entity_ids]


def synonym_pairs(names: Mapping[str, str], *, longest: int = LONGEST_RUN) -> list[tuple[str, str]]:
    """Pairs of entity ids whose names are synonyms (the module docstring's rule).

    Args:
        names: entity id -> name.
        longest: the most words a shorter form may have.

    Returns:
        (entity id, synonym's entity id) pairs, each undirected pair at least once.
    """
    return NameTable.build(names.items(), longest=longest).pairs_among(names.keys())
