"""Synonym names among entities: the walk's cheap form of HippoRAG's similar names.

Two entities are synonyms when their normalised names are equal, or one is a run
of whole words of the other ("Obama" / "Barack Obama", runs of at most
``LONGEST_RUN`` words); one-word names of one or two letters are left out
(initials match too much). A graph search pairs the thousand or so entities its
candidate passages mention, mostly the same from one query to the next, so the
partners of every entity are worked out once per graph snapshot
(``partners_of``, kept by ``read.adjacency``) and a query only looks its
entities up (``pairs_among``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
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


def partners_of(
    names: Iterable[tuple[str, str]], *, longest: int = LONGEST_RUN
) -> dict[str, tuple[str, ...]]:
    """Each entity's synonyms among ``names``: the others with its normalised name,
    and those whose name is a word run of its own (the shorter forms; a pair is
    listed under its longer name, and under both when the names are equal).

    Args:
        names: (entity id, name) pairs.
        longest: the most words a shorter form may have.

    Returns:
        Entity id -> its synonyms' ids; entities without one are left out.
    """
    by_key: dict[str, list[str]] = {}
    for entity_id, name in names:
        key = normalize_name(name)
        if len(key) > 2:
            by_key.setdefault(key, []).append(entity_id)
    partners: dict[str, tuple[str, ...]] = {}
    for key, ids in by_key.items():
        shorter = [b for run in _word_runs(key, longest) for b in by_key.get(run, ())]
        if len(ids) == 1 and not shorter:
            continue
        for a in ids:
            if found := tuple(b for b in ids if b != a) + tuple(shorter):
                partners[a] = found
    return partners


def pairs_among(
    partners: Mapping[str, tuple[str, ...]], entity_ids: Collection[str]
) -> list[tuple[str, str]]:
    """The synonym pairs whose both ends are among ``entity_ids`` (each undirected
    pair at least once).

    Args:
        partners: ``partners_of`` over a set of entities holding these.
        entity_ids: the entities to pair (a set is fastest).

    Returns:
        (entity id, synonym's entity id) pairs.
    """
    return [(a, b) for a in entity_ids for b in partners.get(a, ()) if b in entity_ids]


def synonym_pairs(names: Mapping[str, str], *, longest: int = LONGEST_RUN) -> list[tuple[str, str]]:
    """Pairs of entity ids whose names are synonyms (the module docstring's rule).

    Args:
        names: entity id -> name.
        longest: the most words a shorter form may have.

    Returns:
        (entity id, synonym's entity id) pairs, each undirected pair at least once.
    """
    return pairs_among(partners_of(names.items(), longest=longest), names.keys())
