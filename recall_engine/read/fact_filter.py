"""Facts as a reader's filter sees them: only those stated in chunks it passes, each
ended only by what it passes.

A fact replaced by a statement the filter excludes (another team's notes, or one
made after ``as_of``, whatever time it names) was not replaced as far as the reader
knows: it holds until what replaced that statement in turn, when the filter passes
that, else it is current. Otherwise an answer read from facts would say when, and
that, a value the reader may not see ended it ("Lyon until 5 March").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from recall_engine.core.facts import Fact, is_past

Passing = Callable[[Iterable[str | None]], set[str]]
"""Chunk ids -> those the filter passes."""
StatedIn = Callable[[str], Awaitable[list[Fact]]]
"""A chunk id -> the facts it states, with their stored validity (filter aside)."""

MAX_CHAIN = 32
"""Replacements followed past excluded statements at most (a longer chain is cut
there, and the fact is told as current)."""


async def within_filter(facts: list[Fact], passing: Passing, stated_in: StatedIn) -> list[Fact]:
    """Those of ``facts`` stated in chunks ``passing`` passes, each naming only such
    replacements, and ended as the filter sees it (``_ended_within``).

    Args:
        facts: facts with their stored validity.
        passing: which chunks the filter passes.
        stated_in: the facts of a chunk, to follow a replacement past one the
            filter excludes.

    Returns:
        The facts kept, in the order given.
    """
    ids = [c for f in facts for c in (f.chunk_id, f.superseded_by_chunk)]
    passed = passing(ids + [r.chunk_id for f in facts for r in f.superseded_by])
    out = []
    for fact in facts:
        if fact.chunk_id in passed:
            out.append(await _ended_within(fact, passed, passing, stated_in))
    return out


async def _ended_within(
    fact: Fact, passed: set[str], passing: Passing, stated_in: StatedIn
) -> Fact:
    """``fact`` ended as the filter sees it: by its own replacement when the filter
    passes it (naming only the replacing facts it passes); else as the excluded
    replacement was ended in turn, following the chain to a statement it passes;
    else current. A past fact ("I used to live in Lyon") ended itself, when it was said."""
    by = fact.superseded_by_chunk
    if by is None or by in passed or is_past(fact.valid_from, fact.valid_until):
        return _naming(fact, fact, passed)
    seen = {by}
    for _ in range(MAX_CHAIN):
        then = next(
            (
                f
                for f in await stated_in(by)
                if f.subject_id == fact.subject_id and f.family == fact.family
            ),
            None,
        )
        if then is None or then.superseded_by_chunk is None or then.superseded_by_chunk in seen:
            break
        by = then.superseded_by_chunk
        seen.add(by)
        names = [by, *(r.chunk_id for r in then.superseded_by)]
        passed = passed | passing(names)
        if by in passed:
            return _naming(fact, then, passed)
    return fact.model_copy(
        update={
            "valid_until": None,
            "superseded_by": (),
            "superseded_by_chunk": None,
            "current": True,
        }
    )


def _naming(fact: Fact, ended: Fact, passed: set[str]) -> Fact:
    """``fact`` ended as ``ended`` was (itself, or the excluded fact that replaced it),
    naming only the replacing facts stated in chunks the filter passes."""
    refs = tuple(r for r in ended.superseded_by if r.chunk_id in passed)
    if ended is fact:
        return (
            fact if refs == fact.superseded_by else fact.model_copy(update={"superseded_by": refs})
        )
    return fact.model_copy(
        update={
            "valid_until": ended.valid_until,
            "superseded_by": refs,
            "superseded_by_chunk": ended.superseded_by_chunk,
            "current": ended.current,
        }
    )
