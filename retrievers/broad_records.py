"""BROAD's records: every item of the asked kind the scope states, read as a whole.

The subject's chunks are every chunk that mentions one of its entities (its own
turns included), all of them, in time order; without a subject, every chunk that
shares a word with the question. Each sentence the subject speaks in the first
person, or that names the subject, is read for items (``broad_items``); a wish, a
plan or a denial states none unless the question asks about plans. Items are
deduplicated by entity resolution (the entity their name resolves to, else the
folded name); each keeps its first statement as evidence and counts its later
ones. An item is ended when a fact about it was ended ("I no longer ...") or a
later sentence of the subject names it with an ending word ("sold", "lost").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from recall_engine.core.facts import is_ending
from recall_engine.core.hits import ChunkHit, EntityHit
from recall_engine.core.records import Ask, Record
from recall_engine.read.api import ReadAPI
from retrievers.broad_items import (
    about_others,
    amounts,
    first_person,
    lowered,
    mentions_term,
    modal,
    named_items,
    sentences,
    tokens,
    typed_items,
)
from retrievers.broad_kinds import END_WORDS
from retrievers.broad_query import BroadQuery

MAX_CHUNKS = 2000
"""At most this many chunks are read for one question (a subject's whole history)."""
# Light verbs: a TIMES question's happening is named by its other words.
_LIGHT = frozenset(
    {
        "go",
        "went",
        "gone",
        "goes",
        "do",
        "did",
        "done",
        "make",
        "made",
        "get",
        "got",
        "have",
        "take",
        "took",
    }
)


@dataclass
class Gathered:
    """The chunks read, the subjects resolved, and the records found."""

    chunks: list[ChunkHit] = field(default_factory=list)
    subjects: list[EntityHit] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)


async def subject_entities(read: ReadAPI, names: Sequence[str]) -> list[EntityHit]:
    """The entities the question's names resolve to (people first)."""
    if not names:
        return []
    found = await read.entities_by_name(list(names))
    return sorted(found, key=lambda e: e.type != "PERSON")


async def scope_chunks(
    read: ReadAPI, query: BroadQuery, question: str, subjects: Sequence[EntityHit]
) -> list[ChunkHit]:
    """Every chunk of the subjects (or sharing a word with the question), in time order."""
    if subjects:
        mentions = await read.mentions([e.id for e in subjects])
        ids = list(dict.fromkeys(c for e in subjects for c in mentions.get(e.id, ())))
        chunks = await read.chunks_by_id(ids[:MAX_CHUNKS])
    else:
        words = " ".join([query.kind, *query.terms]) or question
        chunks = await read.lexical_chunks(words, MAX_CHUNKS)
    return sorted(chunks, key=lambda c: (c.timestamp or "", c.data_id, c.chunk_index))


def _spoken_by(chunk: ChunkHit, subjects: Sequence[EntityHit]) -> bool:
    speaker = (chunk.speaker or "").strip().lower()
    if not speaker:
        return False
    for entity in subjects:
        names = {entity.name.lower(), *(a.lower() for a in entity.aliases)}
        if speaker in names or speaker.split()[0] in {n.split()[0] for n in names}:
            return True
    return False


def _names_subject(sentence: str, subjects: Sequence[EntityHit]) -> bool:
    words = {w.lower().removesuffix("'s") for w in tokens(sentence)}
    return any(
        n.lower() in words or n.split()[0].lower() in words
        for e in subjects
        for n in (e.name, *e.aliases)
    )


def _subject_sentences(
    chunk: ChunkHit, subjects: Sequence[EntityHit], query: BroadQuery
) -> list[str]:
    """The sentences of ``chunk`` that speak about the subjects (all, without one)."""
    out = []
    own = _spoken_by(chunk, subjects)
    for sentence in sentences(chunk.text):
        mine = own and (first_person(sentence) or not about_others(sentence))
        if subjects and not (mine or _names_subject(sentence, subjects)):
            continue
        if modal(sentence) and not query.plans:
            continue
        out.append(sentence)
    return out


async def gather(read: ReadAPI, query: BroadQuery, question: str) -> Gathered:
    """The records of ``query`` in the scope of ``read``, deduplicated, in time order."""
    subjects = await subject_entities(read, query.subjects)
    chunks = await scope_chunks(read, query, question, subjects)
    entities = await _chunk_entities(read, chunks) if query.kind else {}
    subject_ids = {e.id for e in subjects}
    found = _found(chunks, subjects, query, entities)
    if not found and query.ask is Ask.TOTAL and query.terms:
        # "How much did Ann spend on bikes?" with amounts stated in other words:
        # every amount of the unit is the subject's total.
        found = _found(chunks, subjects, replace(query, terms=()), entities)
    names = list(dict.fromkeys(item for item, *_ in found))
    resolved = await _resolve(read, names, subject_ids) if query.ask is not Ask.TOTAL else {}
    records: dict[str, Record] = {}
    for item, sentence, chunk, amount, unit in found:
        key = _key(query, item, chunk, sentence, resolved)
        if key in records:
            old = records[key]
            records[key] = old.model_copy(update={"mentions": old.mentions + 1})
            continue
        records[key] = Record(
            item=item,
            key=key,
            sentence=sentence,
            time=chunk.timestamp,
            amount=amount,
            unit=unit,
            source=chunk.sources[0],
        )
    listed = _ended(list(records.values()), chunks, subjects, query)
    listed = await _ended_by_facts(read, listed, subjects)
    return Gathered(chunks=chunks, subjects=subjects, records=listed)


def _found(
    chunks: Sequence[ChunkHit],
    subjects: Sequence[EntityHit],
    query: BroadQuery,
    entities: dict[str, list[tuple[str, str]]],
) -> list[tuple[str, str, ChunkHit, float | None, str | None]]:
    """(item, sentence, chunk, amount, unit) of every item stated, in time order."""
    found = []
    for chunk in chunks:
        for sentence in _subject_sentences(chunk, subjects, query):
            for item, amount, unit in _items(sentence, query, entities.get(chunk.chunk_id, [])):
                found.append((item, sentence, chunk, amount, unit))
    return found


def _items(
    sentence: str, query: BroadQuery, entities: Sequence[tuple[str, str]]
) -> list[tuple[str, float | None, str | None]]:
    if query.ask is Ask.TOTAL:
        if query.terms and not mentions_term(sentence, query.terms):
            return []
        return [(f"{n:g} {u}", n, u) for n, u in amounts(sentence, query.kind)]
    if query.ask is Ask.TIMES:
        wanted = [t for t in query.terms if t not in _LIGHT] or list(query.terms)
        if wanted and all(mentions_term(sentence, [t]) for t in wanted):
            return [(sentence, None, None)]
        return []
    if not query.kind:
        return []
    items = typed_items(sentence, query.kind, entities) or named_items(sentence, query.kind)
    return [(i, None, None) for i in items]


def _key(
    query: BroadQuery, item: str, chunk: ChunkHit, sentence: str, resolved: dict[str, str]
) -> str:
    if query.ask is Ask.TOTAL:
        return f"{chunk.chunk_id}:{sentence}:{item}"
    if query.ask is Ask.TIMES:
        return chunk.chunk_id
    return resolved.get(item) or " ".join(item.lower().split())


async def _chunk_entities(
    read: ReadAPI, chunks: Sequence[ChunkHit]
) -> dict[str, list[tuple[str, str]]]:
    """Chunk id -> (name, type) of the entities it mentions."""
    mentioned = await read.mentioned_in([c.chunk_id for c in chunks])
    refs = await read.entity_refs(list({e for ids in mentioned.values() for e in ids}))
    return {
        c: [(refs[e].name, refs[e].type) for e in ids if e in refs] for c, ids in mentioned.items()
    }


async def _resolve(read: ReadAPI, names: Sequence[str], skip: set[str]) -> dict[str, str]:
    """Item name -> the id of the entity it resolves to (not a subject)."""
    capitalised = [n for n in names if n[:1].isupper()]
    if not capitalised:
        return {}
    out: dict[str, str] = {}
    for entity in await read.entities_by_name(capitalised):
        if entity.id in skip:
            continue
        for name in capitalised:
            if name.lower() in {entity.name.lower(), *(a.lower() for a in entity.aliases)}:
                out.setdefault(name, entity.id)
    return out


def _ended(
    records: list[Record],
    chunks: Sequence[ChunkHit],
    subjects: Sequence[EntityHit],
    query: BroadQuery,
) -> list[Record]:
    """Records a later sentence of the subject ends ("I sold Bessie")."""
    if query.ask in (Ask.TOTAL, Ask.TIMES):
        return records
    out = []
    for record in records:
        ender = None
        name = record.item.lower()
        for chunk in chunks:
            if (chunk.timestamp or "") < (record.time or ""):
                continue
            for sentence in sentences(chunk.text):
                if sentence == record.sentence or name not in sentence.lower():
                    continue
                if not lowered(sentence).isdisjoint(END_WORDS) and (
                    _spoken_by(chunk, subjects) or _names_subject(sentence, subjects)
                ):
                    ender = sentence
        if ender is not None:
            record = record.model_copy(update={"current": False, "ended_by": ender})
        out.append(record)
    return out


async def _ended_by_facts(
    read: ReadAPI, records: list[Record], subjects: Sequence[EntityHit]
) -> list[Record]:
    """Records whose fact an explicit end statement ended (its validity)."""
    if not subjects or not records:
        return records
    facts = await read.facts(subjects[0].name)
    ended = {
        f.object.lower(): f
        for f in facts
        if f.valid_until is not None and any(is_ending(s.predicate) for s in f.superseded_by)
    }
    out = []
    for record in records:
        fact = ended.get(record.item.lower())
        if fact is not None and record.current:
            record = record.model_copy(update={"current": False, "ended_by": fact.text})
        out.append(record)
    return out
