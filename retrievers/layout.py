"""Where each kind of hit sits in a retriever's one ranked list.

A retriever builds one ranked list whose order does not depend on ``top_k``
and returns it cut at ``top_k``, so a caller asking for 15 results gets the
first 15 of what a caller asking for 70 gets (issue 19: with lane sizes and
candidate depth following ``top_k``, HYBRID_COMPLETION's recall@10 was 61.7
at ``top_k=10`` and 71.9 at 70 on a held-out conversation).

Two rules make a list prefix-stable:

- candidate depth is the retriever's own setting; a large ``top_k`` may fetch
  deeper only to *append* what the fixed depth did not find (``extend_tail``),
  never to rescore what it did (a deeper list moves the min-max normalisation
  of every candidate);
- lanes of other kinds (entities, facts, events, triplets) are placed by rank
  index, not by a share of ``top_k``: the best ``ahead`` passages lead, the
  other lanes follow, then the remaining passages (``after_lead``). The
  passages lead because every unit of provenance a caller (or a benchmark)
  reads off the head comes from them; a graph element cites chunks that are
  mostly there already, or the first mentions of a name.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")

PASSAGES_AHEAD = 10
"""Passages ahead of the other lanes by default: the head that every ``top_k``
of at least 10 shares is passages, the ranking every recall@10 is read from."""

READ_AT_LEAST = 50
"""Item lists (CHUNKS, CHUNKS_LEXICAL, SUMMARIES, CODING_RULES) are read at least
this deep and cut at ``top_k``. The store's top-k selection (``numpy.argpartition``)
keeps an arbitrary one of several equally scored rows at its cut, so a read exactly
``top_k`` deep can end on another tied row than a deeper read does (BM25 scores and
scores of texts that share no word with the query tie); ties inside the first 50
are ordered by row. Remove once the store's selection keeps every row tied at its cut."""


def read_depth(top_k: int) -> int:
    """How deep an item list is read for ``top_k`` results (``READ_AT_LEAST``)."""
    return max(top_k, READ_AT_LEAST)


def after_lead(passages: Sequence[T], others: Iterable[U], *, ahead: int) -> list[T | U]:
    """The first ``ahead`` passages, then ``others``, then the remaining passages."""
    return [*passages[:ahead], *others, *passages[ahead:]]


def alternate(*lanes: Sequence[T]) -> list[T]:
    """The lanes interleaved one item at a time (a, b, a, b, ...); a lane that runs
    out leaves the rest to the others."""
    longest = max((len(lane) for lane in lanes), default=0)
    return [lane[i] for i in range(longest) for lane in lanes if i < len(lane)]


def extend_tail(head: Sequence[T], deeper: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """``head`` unchanged, then the items of ``deeper`` it does not hold, in order."""
    seen = {key(item) for item in head}
    out = list(head)
    for item in deeper:
        if key(item) not in seen:
            seen.add(key(item))
            out.append(item)
    return out
