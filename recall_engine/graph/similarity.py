"""Rule 4 of entity resolution: join entities whose vectors and names agree.

Two entities of one type may join when their embedded texts reach the
similarity threshold and ``names_linked`` holds. Comparing every new entity with
every entity of its type costs n^2 (a 1 MB document has ~8,000 entities), so
the pairs compared are only those ``names_linked`` can accept, found by
blocking on what it requires: the same numbers, and a shared name token, or
(for anything but a person) one joined name a prefix of the other, or one name
the initials of the other. The pairs joined are exactly those of the all-pairs
comparison; a token shared by many entities makes one dense block, compared as
a matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

import numpy as np
import regex

from recall_engine.core.graph import IDENTIFIER_TYPES, Entity, EntityType
from recall_engine.graph.lexicon import SPAN_CONNECTORS

EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""Texts -> an array of unit-length rows, one per text."""

_DIGITS = regex.compile(r"\d+")
_BLOCK = 1024  # rows of a similarity matrix computed at once
Pair = tuple[float, int, int, Entity, Entity]


class Clusters(Protocol):
    def __contains__(self, item: str) -> bool: ...
    def find(self, item: str) -> str: ...
    def union(self, a: str, b: str) -> None: ...


def names_linked(a: Entity, b: Entity) -> bool:
    """Whether two names may be one entity if their embeddings agree: the same
    numbers, and a shared token; for anything but a person, also one name a
    prefix of the other ("Midwest", "Midwestern") or its initials ("NYC")."""
    ka, kb = a.normalized_name, b.normalized_name
    if set(_DIGITS.findall(ka)) != set(_DIGITS.findall(kb)):
        return False
    ta, tb = ka.split(), kb.split()
    if set(ta) & set(tb):
        return True
    if a.type is EntityType.PERSON or b.type is EntityType.PERSON:
        return False
    ca, cb = "".join(ta), "".join(tb)
    short, long_ = (ca, tb) if len(ca) <= len(cb) else (cb, ta)
    initials = _initials(long_)
    return (ca.startswith(cb) or cb.startswith(ca)) or (len(long_) > 1 and short == initials)


def _initials(tokens: Sequence[str]) -> str:
    return "".join(t[0] for t in tokens if t not in SPAN_CONNECTORS)


class SimilarityJoin:
    """Rule 4 over one namespace; ``comparisons`` counts the vector pairs scored."""

    def __init__(
        self,
        embed: EmbedFn | None,
        vectors: Mapping[str, np.ndarray],
        threshold: float,
        stored: Iterable[str],
    ) -> None:
        self.embed, self.vectors, self.threshold = embed, vectors, threshold
        self.stored = set(stored)
        self.comparisons = 0

    def join(self, entities: list[Entity], clusters: Clusters, order: dict[str, int]) -> None:
        by_type: dict[EntityType, dict[str, Entity]] = {}
        for e in sorted(entities, key=lambda e: order[e.id]):
            if e.type not in IDENTIFIER_TYPES:
                by_type.setdefault(e.type, {}).setdefault(clusters.find(e.id), e)
        pairs: list[Pair] = []
        for representatives in by_type.values():
            reps = list(representatives.values())
            if len(reps) > 1 and any(e.id not in self.stored for e in reps):
                pairs += self._pairs(reps, order)
        has_stored = {clusters.find(i) for i in self.stored if i in clusters}
        for _, _, _, a, b in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
            ra, rb = clusters.find(a.id), clusters.find(b.id)
            if ra == rb or (ra in has_stored and rb in has_stored):
                continue
            clusters.union(ra, rb)
            if ra in has_stored or rb in has_stored:
                has_stored.add(clusters.find(ra))

    def _pairs(self, reps: list[Entity], order: dict[str, int]) -> list[Pair]:
        """Pairs (new with new or with stored) that reach the threshold and whose
        names are linked; a new-new pair as (earlier rep, later rep)."""
        reps, matrix = self._vectors(reps)
        is_new = np.asarray([e.id not in self.stored for e in reps], dtype=bool)
        found: dict[tuple[int, int], float] = {}

        def keep(i: int, j: int, score: float) -> None:
            if i == j or not (is_new[i] or is_new[j]):
                return
            a, b = (min(i, j), max(i, j)) if is_new[i] and is_new[j] else (i, j)
            if not is_new[a]:
                a, b = b, a
            found.setdefault((a, b), score)

        for members in _token_blocks(reps):
            block = np.asarray(members, dtype=np.intp)
            rows = block[is_new[block]]
            for start in range(0, rows.size, _BLOCK):
                part = rows[start : start + _BLOCK]
                scores = matrix[part] @ matrix[block].T
                self.comparisons += scores.size
                for r, c in np.argwhere(scores >= self.threshold).tolist():
                    keep(int(part[r]), int(block[c]), float(scores[r, c]))
        if reps and reps[0].type is not EntityType.PERSON:
            links = [(i, j) for i, j in _name_links(reps) if is_new[i] or is_new[j]]
            if links:
                left, right = (np.asarray(side, dtype=np.intp) for side in zip(*links, strict=True))
                scores = np.einsum("ij,ij->i", matrix[left], matrix[right])
                self.comparisons += len(links)
                for (i, j), score in zip(links, scores.tolist(), strict=True):
                    if score >= self.threshold:
                        keep(i, j, score)
        out = []
        for (i, j), score in found.items():
            a, b = reps[i], reps[j]
            if names_linked(a, b):
                out.append((score, order[a.id], order[b.id], a, b))
        return out

    def _vectors(self, reps: list[Entity]) -> tuple[list[Entity], np.ndarray]:
        missing = [e for e in reps if e.id not in self.vectors]
        found: dict[str, np.ndarray] = {
            e.id: self.vectors[e.id] for e in reps if e.id in self.vectors
        }
        if missing and self.embed is not None:
            rows = np.asarray(self.embed([e.embedding_text() for e in missing]), dtype=np.float32)
            if rows.ndim != 2 or rows.shape[0] != len(missing):
                raise ValueError(f"embed returned shape {rows.shape} for {len(missing)} texts")
            found.update({e.id: row for e, row in zip(missing, rows, strict=True)})
        kept = [e for e in reps if e.id in found]
        if not kept:
            return [], np.zeros((0, 0), dtype=np.float32)
        return kept, np.vstack([found[e.id] for e in kept]).astype(np.float32)


def _numbers(name: str) -> tuple[str, ...]:
    return tuple(sorted(set(_DIGITS.findall(name))))


def _token_blocks(reps: Sequence[Entity]) -> Iterator[list[int]]:
    """Indexes of entities that share a name token and their numbers, per token."""
    blocks: dict[tuple[tuple[str, ...], str], list[int]] = {}
    for i, e in enumerate(reps):
        numbers = _numbers(e.normalized_name)
        for token in dict.fromkeys(e.normalized_name.split()):
            blocks.setdefault((numbers, token), []).append(i)
    return (members for members in blocks.values() if len(members) > 1)


def _name_links(reps: Sequence[Entity]) -> Iterator[tuple[int, int]]:
    """Pairs with the same numbers where one joined name is a prefix of the
    other's, or the initials of the other's tokens (supersets of what
    ``names_linked`` accepts beyond a shared token)."""
    joined: dict[tuple[tuple[str, ...], str], list[int]] = {}
    initials: dict[tuple[tuple[str, ...], str], list[int]] = {}
    keys = []
    for i, e in enumerate(reps):
        tokens = e.normalized_name.split()
        numbers, whole = _numbers(e.normalized_name), "".join(tokens)
        keys.append((numbers, whole))
        joined.setdefault((numbers, whole), []).append(i)
        if len(tokens) > 1 and (short := _initials(tokens)):
            initials.setdefault((numbers, short), []).append(i)
    for i, (numbers, whole) in enumerate(keys):
        for end in range(1, len(whole) + 1):
            for j in joined.get((numbers, whole[:end]), ()):
                if j != i:
                    yield i, j
        for j in initials.get((numbers, whole), ()):
            if j != i:
                yield i, j
