"""``as_of``: what the memory knew at a time.

As of a time, a statement made later is unknown: a chunk stated later is not read, and
a fact replaced later is told as it held then (current, with no end and no
replacement). ``held_then`` tells facts so; ``AsOfReader`` is the call's reader bound
to that time, so every read of a retriever (the whole-scope types' too: BROAD's
records, GRAPH_REPORT's graph) sees only what was stated by then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from recall_engine.core.facts import Fact, is_past
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.storage.tenant import TenantStore
from recall_engine.storage.time_filter import to_epoch


def held_then(facts: Iterable[Fact], as_of: datetime) -> list[Fact]:
    """``facts`` as known at ``as_of``: those stated by then, each ended only by what
    was stated by then (a fact replaced later held then, and is told as current).

    A past fact ("I used to live in Lyon": no start, ended when it was said) was
    stated when it ended.
    """
    out = []
    for fact in facts:
        said = fact.valid_until if is_past(fact.valid_from, fact.valid_until) else fact.valid_from
        if said is not None and said > as_of:
            continue
        if (
            fact.valid_until is not None
            and fact.valid_until > as_of
            and not is_past(fact.valid_from, fact.valid_until)
        ):
            fact = fact.model_copy(
                update={
                    "valid_until": None,
                    "superseded_by": (),
                    "superseded_by_chunk": None,
                    "current": True,
                }
            )
        out.append(fact)
    return out


class AsOfReader(TenantReader):
    """A ``TenantReader`` that reads only chunks stated at or before ``as_of`` (a
    chunk of unknown time is kept, as the tense stage keeps it), and facts as they
    held then (``held_then``).

    The time bound rides on the reader's filter (``ChunkFilter.stated_by``, with the
    caller's ``where``): every chunk search masks by it, and what rests on chunks
    (facts, edges, entities and their mentions, the scope's graph) follows the chunks
    kept.
    """

    def __init__(
        self,
        store: TenantStore,
        dataset_ids: Sequence[str],
        *,
        as_of: datetime,
        where: ChunkFilter | None = None,
    ) -> None:
        bound = ChunkFilter(stated_by=to_epoch(as_of))
        super().__init__(store, dataset_ids, where=bound.and_(where))
        self.as_of = as_of

    @classmethod
    def of(cls, read: TenantReader, as_of: datetime) -> AsOfReader:
        """``read`` (its store, scope and filter) bound to ``as_of``."""
        return cls(read._store, read.dataset_ids, as_of=as_of, where=read._where)

    async def facts(
        self, subject: str, *, as_of: datetime | None = None, history: bool = True
    ) -> list[Fact]:
        told = held_then(await super().facts(subject), self.as_of)
        if as_of is not None:
            return [f for f in told if f.valid_at(as_of)]
        return told if history else [f for f in told if f.current]

    async def chunk_validity(self, chunk_ids: Sequence[str]) -> dict[str, list[Fact]]:
        found = await super().chunk_validity(chunk_ids)
        return {c: held_then(facts, self.as_of) for c, facts in found.items()}
