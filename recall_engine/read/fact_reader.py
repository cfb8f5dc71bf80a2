"""``FactReader``: a subject's facts with their validity, and the validity of the
facts each chunk states (``read.api.FactReads``), through ``GraphStore``'s edge
reads; see ``core.facts`` for what the validity fields mean. End statements
(``ended_*``) are not listed as facts: they show as what superseded the facts
they ended, when no new value did.

Both reads are kept per store version (``read.adjacency.store_version``): a
subject's facts and a chunk's validity change only with a write, and the tense
stage asks for them on every recall. The relations they come from are read as the
graph snapshot's are (``read.adjacency.PARTIAL_READS``): a few at a time for the
first reads at one version, then every relation of the scope at once, so a store
that only ever answers passage searches (no graph snapshot) does not scan the
relation table for each new question's chunks; and, like the snapshot's, those
relations are carried over a write that only adds (``ScopeRecords.carried``)."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from recall_engine.core.facts import Fact, FactRef, is_ending, is_past, parse_utc, valid_at
from recall_engine.core.graph import normalize_name
from recall_engine.graph.rules_relations import RELATED_TO
from recall_engine.read.adjacency import (
    PARTIAL_READS,
    Marks,
    current_adjacency,
    fill_records,
    holds_records,
    records_from,
    records_in_chunks,
    store_version,
    wants_all_records,
)
from recall_engine.read.fact_filter import within_filter
from recall_engine.read.scoped import ScopedReader
from recall_engine.storage.graph_reads import EdgeRecord
from recall_engine.storage.tenant import TenantStore

_MEMO_LOCK = threading.Lock()
_MEMO: weakref.WeakKeyDictionary[
    TenantStore, tuple[tuple[int | None, ...], dict[object, object]]
] = weakref.WeakKeyDictionary()
_LAST: weakref.WeakKeyDictionary[TenantStore, dict[tuple[str, ...], ScopeRecords]] = (
    weakref.WeakKeyDictionary()
)
LAST_SCOPES = 8
"""Scopes per store whose records are kept past a write, to be carried over."""
_MEMO_CAP = 50_000
"""Entries one store version keeps at most (subjects and chunks); past it, it starts again."""


def _memo(store: TenantStore) -> dict[Any, Any]:
    """The read cache of ``store``'s current version (a new one after any write)."""
    version = store_version(store)
    with _MEMO_LOCK:
        cached = _MEMO.get(store)
        if cached is None or cached[0] != version or len(cached[1]) > _MEMO_CAP:
            cached = (version, {})
            _MEMO[store] = cached
        return cached[1]


class FactReader(ScopedReader):
    """Facts within the scope."""

    async def facts(
        self, subject: str, *, as_of: datetime | None = None, history: bool = True
    ) -> list[Fact]:
        key = normalize_name(subject or "")
        if not key:
            return []
        memo = _memo(self._store)
        facts = memo.get(("facts", self._scope, key))
        if facts is None:
            facts = await self._subject_facts(key)
            memo[("facts", self._scope, key)] = facts
        if self._where is not None:
            by_chunk: dict[str | None, list[Fact]] = {}
            for fact in facts:
                by_chunk.setdefault(fact.chunk_id, []).append(fact)

            async def stated_in(chunk_id: str) -> list[Fact]:
                return by_chunk.get(chunk_id, [])

            facts = await within_filter(facts, self._passing_ids, stated_in)
        if as_of is not None:
            facts = [f for f in facts if f.valid_at(as_of)]
        elif not history:
            facts = [f for f in facts if f.current]
        return sorted(facts, key=_order)

    def _passing_ids(self, chunk_ids: Iterable[str | None]) -> set[str]:
        """``_passing`` of a reader with a filter (the memo holds the scope's facts,
        whatever the filter: ``read.fact_filter`` reads them as it sees them)."""
        return self._passing(chunk_ids) or set()

    async def _subject_facts(self, key: str) -> list[Fact]:
        graph = self._store.graph
        entities = await asyncio.to_thread(graph.entities_by_keys, [key], self._scope)
        ids = {e.id for e in entities if normalize_name(e.name) == key} or {e.id for e in entities}
        if not ids:
            return []
        # Without a graph snapshot, from the scope's relations once read at once (a
        # graph search's reads of every relation are the snapshot's, not these).
        snapshot = current_adjacency(self._store)
        held = None if snapshot else await self._held_records()
        if held is not None:
            edges = held.touching(ids)
        elif snapshot is not None and holds_records(
            snapshot, (e for i in ids for e in snapshot.edges_of_entity.get(i, ()))
        ):
            edges = records_from(snapshot, ids, self._scope)
        else:
            edges = await asyncio.to_thread(graph.edges_from, sorted(ids), self._scope)
        stated = [e for e in edges if e.source_id in ids and e.predicate != RELATED_TO]
        return _without_restated_past(self._facts(stated, with_text=True))

    async def chunk_validity(self, chunk_ids: Sequence[str]) -> dict[str, list[Fact]]:
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted:
            return {}
        found = await self._validity(wanted)
        if self._where is not None:

            async def stated_in(chunk_id: str) -> list[Fact]:
                return (await self._validity([chunk_id]))[chunk_id]

            found = {
                c: await within_filter(f, self._passing_ids, stated_in) for c, f in found.items()
            }
        return {c: list(facts) for c, facts in found.items() if facts}

    async def _validity(self, wanted: list[str]) -> dict[str, list[Fact]]:
        """Chunk id -> the facts it states, as stored (the filter aside), for each
        of ``wanted``; read once per store version."""
        memo = _memo(self._store)
        missing = [c for c in wanted if ("chunk", self._scope, c) not in memo]
        snapshot = current_adjacency(self._store)
        if snapshot is not None:  # a chunk that states no relation states no fact
            for chunk_id in [c for c in missing if not snapshot.edges_of_chunk.get(c)]:
                memo[("chunk", self._scope, chunk_id)] = []
            missing = [c for c in missing if snapshot.edges_of_chunk.get(c)]
        if missing:  # a chunk's validity depends on its own facts alone: read the new ones
            found = await self._chunk_validity(missing)
            for chunk_id in missing:
                memo[("chunk", self._scope, chunk_id)] = found.get(chunk_id, [])
        return {c: memo[("chunk", self._scope, c)] for c in wanted}

    async def _chunk_validity(self, wanted: list[str]) -> dict[str, list[Fact]]:
        edges = await self._edges_in_chunks(wanted)
        kept = [e for e in edges if e.family]
        # what replaced them: the facts of the replacing chunks, to name them
        later = sorted({e.superseded_by_chunk for e in kept if e.superseded_by_chunk} - set(wanted))
        extra = await self._edges_in_chunks(later) if later else []
        facts = self._facts(kept + [e for e in extra if e.family], with_text=False)
        out: dict[str, list[Fact]] = {c: [] for c in wanted}
        for fact in sorted(facts, key=_order):
            if fact.chunk_id in out:
                out[fact.chunk_id].append(fact)
        return {c: list(found) for c, found in out.items() if found}

    async def _edges_in_chunks(self, chunk_ids: list[str]) -> list[EdgeRecord]:
        """``GraphStore.edges_in_chunks`` (a scan of the relation table in Kuzu), from
        the structure snapshot's records once they are complete or due
        (``read.adjacency.wants_all_records``), else from the scope's own
        (``_held_records``) when no snapshot is held."""
        snapshot = current_adjacency(self._store)
        if snapshot is not None:
            stated = [e for c in chunk_ids for e in snapshot.edges_of_chunk.get(c, ())]
            if not holds_records(snapshot, stated) and wants_all_records(snapshot):
                await asyncio.to_thread(fill_records, self._store, snapshot)
            if holds_records(snapshot, stated):  # (those a write left are kept)
                return records_in_chunks(snapshot, chunk_ids, self._scope)
        elif (held := await self._held_records()) is not None:
            return held.in_chunks(chunk_ids)
        graph = self._store.graph
        return await asyncio.to_thread(graph.edges_in_chunks, chunk_ids, self._scope)

    async def _held_records(self) -> ScopeRecords | None:
        """Every relation of the scope: carried over from the last version's when a
        write only added since (``ScopeRecords.carried``), else read at once on the
        first read past ``PARTIAL_READS`` at this store version (None before:
        reading a few costs less, and a store written between reads never gets there)."""
        memo = _memo(self._store)
        key = ("records", self._scope)
        held = memo.get(key)
        if held is None:
            last = _last_records(self._store).get(self._scope)
            if last is not None:
                held = await asyncio.to_thread(last.carried, self._store, self._scope)
            if held is None:
                reads = memo.get(("record_reads", self._scope), 0) + 1
                memo[("record_reads", self._scope)] = reads
                if reads <= PARTIAL_READS:
                    return None
                marks = Marks.of(self._store)  # before reading: a later write is read on
                graph = self._store.graph
                records = await asyncio.to_thread(graph.edges_of_datasets, list(self._scope))
                held = ScopeRecords.of(records, marks)
            memo[key] = held
            _keep_last(self._store, self._scope, held)
        assert isinstance(held, ScopeRecords)
        return held

    def _facts(self, edges: list[EdgeRecord], *, with_text: bool) -> list[Fact]:
        by_statement: dict[tuple[str, str | None, str | None], list[EdgeRecord]] = {}
        for edge in edges:
            by_statement.setdefault((edge.source_id, edge.family, edge.chunk_id), []).append(edge)
        texts: dict[str, str] = {}
        if with_text:
            chunk_ids = {e.chunk_id for e in edges if e.chunk_id}
            texts = {r.id: r.text for r in self._store.index.by_id(chunk_ids, self._scope)}
        out = []
        for edge in edges:
            if is_ending(edge.predicate):  # an end is no value: it shows in what it ended
                continue
            replacing = by_statement.get(
                (edge.source_id, edge.family, edge.superseded_by_chunk), []
            )
            values = [r for r in replacing if not is_ending(r.predicate)] or replacing
            refs = tuple(
                FactRef(id=r.id, predicate=r.predicate, object=r.target_name, chunk_id=r.chunk_id)
                for r in sorted(values, key=lambda r: (r.id != edge.superseded_by, r.id))
            )
            if edge.superseded_by and not refs:
                refs = (FactRef(id=edge.superseded_by, predicate="", object="", chunk_id=None),)
            out.append(
                Fact(
                    id=edge.id,
                    subject=edge.source_name,
                    subject_id=edge.source_id,
                    predicate=edge.predicate,
                    object=edge.target_name,
                    object_id=edge.target_id,
                    family=edge.family,
                    context=edge.context,
                    valid_from=parse_utc(edge.valid_from),
                    valid_until=parse_utc(edge.valid_until),
                    superseded_by=refs,
                    superseded_by_chunk=edge.superseded_by_chunk,
                    current=edge.valid_until is None,
                    chunk_id=edge.chunk_id,
                    data_id=edge.data_id,
                    dataset_id=edge.dataset_id,
                    dataset_name=self._names.get(edge.dataset_id),
                    text=texts.get(edge.chunk_id or ""),
                )
            )
        return out


def _last_records(store: TenantStore) -> dict[tuple[str, ...], ScopeRecords]:
    """The records last held per scope of ``store`` (any version), to carry over."""
    with _MEMO_LOCK:
        return dict(_LAST.get(store, {}))


def _keep_last(store: TenantStore, scope: tuple[str, ...], held: ScopeRecords) -> None:
    """Keep ``held`` as ``scope``'s last records, for at most ``LAST_SCOPES`` scopes
    (the scope asked longest ago goes first)."""
    with _MEMO_LOCK:
        kept = _LAST.setdefault(store, {})
        kept.pop(scope, None)
        kept[scope] = held
        while len(kept) > LAST_SCOPES:
            del kept[next(iter(kept))]


class ScopeRecords:
    """The relations of one scope at one store version, by chunk and by end, and how
    far the indexes had been read when they were (``adjacency.Marks``)."""

    def __init__(
        self,
        by_id: dict[str, EdgeRecord],
        by_chunk: dict[str, list[EdgeRecord]],
        by_end: dict[str, list[EdgeRecord]],
        marks: Marks,
    ) -> None:
        self._by_id, self._by_chunk, self._by_end = by_id, by_chunk, by_end
        self.marks = marks

    @classmethod
    def of(cls, records: Iterable[EdgeRecord], marks: Marks) -> ScopeRecords:
        """Index ``records`` (one scope's relations, read once the indexes were read
        to ``marks``)."""
        by_id: dict[str, EdgeRecord] = {}
        by_chunk: dict[str, list[EdgeRecord]] = {}
        by_end: dict[str, list[EdgeRecord]] = {}
        for record in sorted(records, key=lambda r: r.id):
            if record.id in by_id:
                continue
            by_id[record.id] = record
            if record.chunk_id:
                by_chunk.setdefault(record.chunk_id, []).append(record)
            by_end.setdefault(record.source_id, []).append(record)
            if record.target_id != record.source_id:
                by_end.setdefault(record.target_id, []).append(record)
        return cls(by_id, by_chunk, by_end, marks)

    def carried(self, store: TenantStore, scope: Sequence[str]) -> ScopeRecords | None:
        """These records at the store's version now, when it only gained rows since
        (``Marks.read_on``; else None): the relations of the subjects the write stated
        facts of (new ones, and those whose validity was worked out again) and of those
        with an end it updated are read again by their subjects
        (``GraphStore.edges_from``) and replace what was held of them.

        Blocking (it reads the graph): call it from a worker thread."""
        marks, now = self.marks, self.marks.read_on(store)
        if now is None:
            return None
        allowed = set(scope)
        subjects = {
            row["source_id"]
            for row in store.relation_index.rows_since(marks.relations[0])
            if row["dataset_id"] in allowed
        }
        updated = {row["id"] for row in store.entity_index.rows_since(marks.entities)}
        # their relations and those with an end the write updated, read again
        sources = subjects | {r.source_id for e in updated for r in self._by_end.get(e, ())}
        read = store.graph.edges_from(sorted(sources), list(scope)) if sources else []
        return ScopeRecords.of([*read, *self._by_id.values()], now)  # a record read wins

    def in_chunks(self, chunk_ids: Sequence[str]) -> list[EdgeRecord]:
        """The relations stated in these chunks, ordered by id (as the graph's read)."""
        return self._ordered(self._by_chunk, chunk_ids)

    def touching(self, entity_ids: Sequence[str] | set[str]) -> list[EdgeRecord]:
        """The relations with either end in ``entity_ids``, ordered by id."""
        return self._ordered(self._by_end, entity_ids)

    @staticmethod
    def _ordered(
        index: dict[str, list[EdgeRecord]], keys: Sequence[str] | set[str]
    ) -> list[EdgeRecord]:
        found = {r.id: r for key in keys for r in index.get(key, ())}
        return [found[i] for i in sorted(found)]


def _without_restated_past(facts: list[Fact]) -> list[Fact]:
    """``facts`` less the past facts ("I used to live in Lyon", ``core.facts.PAST``)
    whose value a dated fact already holds from before: that fact says when it held,
    and the past one, with no start, would seem to hold before it began."""
    dated = {
        (f.subject_id, f.family, f.object_id): f.valid_from
        for f in sorted(facts, key=lambda f: f.valid_from or datetime.max, reverse=True)
        if f.valid_from is not None
    }

    def restated(fact: Fact) -> bool:
        if not is_past(fact.valid_from, fact.valid_until) or fact.valid_until is None:
            return False
        since = dated.get((fact.subject_id, fact.family, fact.object_id))
        return since is not None and since < fact.valid_until

    return [f for f in facts if not restated(f)]


def _order(fact: Fact) -> tuple[str, datetime, str]:
    return (fact.predicate, fact.valid_from or datetime.min, fact.id)


__all__ = ["FactReader", "valid_at"]
