"""Where each kind of hit sits in a retriever's one ranked list.

A retriever builds one ranked list whose order does not depend on ``top_k``
and returns it cut at ``top_k``, so a caller asking for 15 results gets the
first 15 of what a caller asking for 70 gets (with lane sizes and candidate
depth following ``top_k``, a small ``top_k`` ranked worse at the head).

Two rules make a list prefix-stable:

- candidate depth is the retriever's own setting; a large ``top_k`` may fetch
  deeper only to *append* what the fixed depth did not find (``extend_tail``),
  never to rescore what it did (a deeper list moves the min-max normalisation
  of every candidate);
- lanes of other kinds (entities, facts, events) are placed by rank index, not
  by a share of ``top_k``: the best ``ahead`` passages lead, then the remaining
  passages and the other lanes alternate (``after_lead``). The passages lead
  because every unit of provenance a caller (or a benchmark) reads off the head
  comes from them; a graph element cites chunks that are mostly there already,
  or the first mentions of a name.

The layouts measured before this one was kept: ``docs/decisions.md``.
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
    """The first ``ahead`` passages, then the remaining passages and ``others``
    alternately (a passage first); the longer of the two finishes the list."""
    rest: list[T | U] = list(passages[ahead:])
    return [*passages[:ahead], *alternate(rest, list(others))]


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
