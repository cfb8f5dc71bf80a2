"""Which facts hold one value at a time: predicate families as data.

A family is an aspect of a subject: where one lives, whom one works for, one's
job, one's relationship, a favourite thing, a preference one switched to, a state
(mood, a symptom) hold one value at a time; pets and children are several at once
(``core.facts.MULTI_VALUED_FAMILIES``: a second pet adds, only an explicit end such
as "Rex died" ends one). Each ``FamilyRule`` maps predicates (and, for the generic
``is_a``, the object's head noun) to a family; its ``examples`` are test cases.
``stamp`` gives each relation of a chunk its statement time (``valid_from``) and
family; the stores then order a subject's facts of one family by statement time
and let a later value end the earlier ones (``core.facts.timeline``). A fact with
no family is never superseded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import regex

from recall_engine.core.facts import as_utc, is_ending, kind_of
from recall_engine.core.graph import ChunkExtraction, Entity, EntityType, Relation
from recall_engine.storage.records import ChunkRecord

# Head nouns that name an occupation: "I am now a software developer" is a job,
# "I am a morning person" is not. General English, not drawn from any data set.
_OCCUPATION_WORDS = """accountant actor actress analyst architect artist assistant attorney
    author baker banker barber barista bartender biologist builder butcher carpenter cashier
    chef chemist
    cleaner clerk coach consultant cook counselor counsellor dancer dentist designer detective
    developer dietitian director doctor driver economist editor electrician engineer
    entrepreneur farmer firefighter freelancer gardener guard hairdresser historian intern
    janitor journalist judge lawyer lecturer librarian lifeguard manager mechanic midwife
    musician nanny nurse officer painter paramedic pharmacist photographer physician
    physicist physiotherapist pilot plumber poet politician producer professor programmer
    psychologist receptionist reporter researcher salesperson scientist secretary singer
    soldier student surgeon tailor teacher technician therapist translator tutor veterinarian
    vet waiter waitress writer"""
OCCUPATIONS = frozenset(_OCCUPATION_WORDS.split())


@dataclass(frozen=True, slots=True)
class FamilyRule:
    """Relations whose predicate full-matches ``predicate`` (and, when set, whose
    object's last word is an occupation) belong to ``family``; ``{kind}`` in it is
    filled from the predicate's ``kind`` group. ``examples``: (sentence, family)."""

    id: str
    family: str
    predicate: str
    occupation_object: bool = False
    examples: tuple[tuple[str, str], ...] = ()


FAMILY_RULES: tuple[FamilyRule, ...] = (
    FamilyRule(
        "home",
        "home",
        r"lives_in|moved_to",
        examples=(("I live in Lyon.", "home"), ("Ruth moved to Berlin.", "home")),
    ),
    FamilyRule(
        "employer",
        "employer",
        r"works_for",
        examples=(("Grace Hopper worked for Remington Rand.", "employer"),),
    ),
    FamilyRule(
        "job-as",
        "job",
        r"works_as",
        examples=(("I work as a nurse at the hospital.", "job"),),
    ),
    FamilyRule(
        "job-is-a",
        "job",
        r"is_a",
        occupation_object=True,
        examples=(
            ("I am now a software developer at a startup.", "job"),
            ("Ada is a mathematician.", ""),
        ),
    ),
    FamilyRule(
        "relationship",
        "relationship",
        r"married|dating|relationship_status",
        examples=(
            ("I'm married to Tom.", "relationship"),
            ("Ben is dating Zoe now.", "relationship"),
        ),
    ),
    FamilyRule(
        "ended",
        "{kind}",
        r"ended_(?P<kind>home|employer|job|relationship|pet|preference)(?:_\w+)?",
        examples=(
            ("I quit nursing last month.", "job"),
            ("I don't live in Lyon anymore.", "home"),
            ("I no longer work at Google.", "employer"),
            ("Sadly our old dog Rex died in May.", "pet"),
        ),
    ),
    FamilyRule(
        "pet",
        "pet",
        r"has_pet(?:_\w+)?",
        examples=(
            ("I have a beagle named Biscuit.", "pet"),
            ("We adopted a black cat called Shadow.", "pet"),
        ),
    ),
    FamilyRule(
        "child",
        "child",
        r"has_child",
        examples=(("I have a son named Leo.", "child"),),
    ),
    FamilyRule(
        "preference",
        "preference",
        r"prefers(?:_\w+)?",
        examples=(
            ("I switched to green tea.", "preference"),
            ("I switched my phone to a Pixel.", "preference"),
        ),
    ),
    FamilyRule(
        "favourite",
        "favourite:{kind}",
        r"favourite_(?P<kind>\w+)",
        examples=(("My favourite food is sushi.", "favourite:food"),),
    ),
    FamilyRule(
        "mood",
        "state:mood",
        r"feels",
        examples=(("I feel exhausted these days.", "state:mood"),),
    ),
    FamilyRule(
        "condition",
        "state:{kind}",
        r"condition_(?P<kind>\w+)",
        examples=(("My back pain is much worse.", "state:back_pain"),),
    ),
)
_COMPILED = tuple((rule, regex.compile(rule.predicate)) for rule in FAMILY_RULES)


def is_occupation(name: str) -> bool:
    """Whether ``name``'s last word names an occupation ("software developer"), or
    is the gerund of one ("nursing", "teaching")."""
    words = name.lower().split()
    if not words:
        return False
    word = words[-1].strip(".,")
    if word in OCCUPATIONS:
        return True
    stem = word[:-3] if word.endswith("ing") else ""
    return bool(stem) and (stem + "e" in OCCUPATIONS or stem + "er" in OCCUPATIONS)


_NAMED_TYPES = frozenset({EntityType.PERSON, EntityType.PLACE, EntityType.ORGANIZATION})


def ends_by_name(predicate: str, value: Entity | None) -> bool:
    """Whether a ``predicate`` fact ends a value that it calls by name ("I don't
    live in Rome anymore": ``ended_home Rome``) rather than describes ("I quit
    nursing", "we broke up": ``ended_relationship partner``): an end
    (``core.facts.ENDED_PREFIX``) of no kind whose object is a proper name
    (capitalised, or typed a person, place or organisation). Such an end only
    ends the value of that name: ``stamp`` states it as past. A relationship's
    end is never one: its held value is as often a state as a person ("engaged",
    then "I broke up with Tom"), so it ends the current one, whatever it names."""
    if value is None or not is_ending(predicate) or kind_of(predicate) is not None:
        return False
    if predicate == "ended_relationship":
        return False
    return value.name[:1].isupper() or value.type in _NAMED_TYPES


def family_of(predicate: str, object_name: str) -> str | None:
    """The family of a ``predicate`` fact whose object is ``object_name``, or None."""
    for rule, pattern in _COMPILED:
        m = pattern.fullmatch(predicate)
        if m is None or (rule.occupation_object and not is_occupation(object_name)):
            continue
        return rule.family.format(**m.groupdict())
    return None


# An LLM's words for an aspect -> the family the rules use.
ASPECT_SYNONYMS = {
    "home": "home", "residence": "home", "address": "home", "location": "home",
    "city": "home", "lives_in": "home", "employer": "employer", "workplace": "employer",
    "company": "employer", "works_for": "employer", "job": "job", "occupation": "job",
    "profession": "job", "role": "job", "title": "job", "position": "job", "career": "job",
    "relationship": "relationship", "partner": "relationship", "spouse": "relationship",
    "relationship_status": "relationship", "dating": "relationship", "mood": "state:mood",
    "pet": "pet", "pets": "pet", "child": "child", "children": "child", "kids": "child",
    "hobby": "hobby", "hobbies": "hobby", "preference": "preference",
}  # fmt: skip
_ASPECT = regex.compile(r"^(favou?rite|preference|preferred|state|health|condition)[:_ ](.+)$")


def family_of_aspect(aspect: str | None) -> str | None:
    """The family an extractor's ``aspect`` names ("residence" -> home,
    "favorite:food" -> favourite:food, "health: back pain" -> state:back_pain); an
    unknown aspect is kept in snake case; None or blank: None."""
    if not aspect or not aspect.strip():
        return None
    text = "_".join(aspect.strip().lower().replace("-", " ").split())
    if text in ASPECT_SYNONYMS:
        return ASPECT_SYNONYMS[text]
    m = _ASPECT.match(text)
    if m is None:
        return text
    kind = m.group(2).strip(":_ ")
    prefix = "favourite" if m.group(1).startswith(("favo", "pref")) else "state"
    return f"{prefix}:{kind}" if kind else None


# Wording that places a fact before the time it is stated: "I used to live in Lyon".
PAST_WORDING = regex.compile(r"\bused\s+to\b|\bformerly\b|\bpreviously\b", regex.IGNORECASE)
# A date phrase that says when a fact stopped: "I worked at Acme until 2020".
_UNTIL = regex.compile(r"(?:until|till|til|up\s+(?:to|until))\s+", regex.IGNORECASE)
_UNTIL_BEFORE = regex.compile(r"\b(?:until|till|til|up\s+(?:to|until))\s+$", regex.IGNORECASE)
# Wording of a plan: "I will move", "I'm going to move", "I plan to move". A plan
# states no fact until the time its sentence names (``graph.rules_mood``).
PLAN_WORDING = regex.compile(
    r"\b(?:will|shall|gonna|going\s+to|about\s+to|plan(?:s|ning)?\s+to)\b|'ll\b", regex.IGNORECASE
)
# A plan, or a present progressive ("I'm moving to Oslo next month"): a sentence so
# worded that names a time later than its statement states a fact from that time.
FUTURE_WORDING = regex.compile(
    PLAN_WORDING.pattern + r"|(?:'m|'re|'s|\bam|\bare|\bis)\s+\p{L}+ing\b", regex.IGNORECASE
)
# A date phrase that names its year ("in 2019", "May 2021") dates a fact on its own.
_YEAR = regex.compile(r"\b(?:1[6-9]|20)\d\d\b")
ORDER_STEP = timedelta(microseconds=1)
"""How much later each next statement of a document counts as stated: a
document's sentences share its time, and a later one may change an earlier one."""
_PER_CHUNK = 1000


@dataclass(frozen=True, slots=True)
class Stated:
    """When a chunk's words were stated, and for a document's chunk its place
    (``chunk_index``) among the document's chunks; None for a message."""

    at: datetime
    position: int | None = None


def stamp(
    extraction: ChunkExtraction, stated_at: datetime, *, position: int | None = None
) -> ChunkExtraction:
    """``extraction`` with each relation's validity and ``family`` set (the
    extractor's own, else ``family_of``): what the stores order and supersede by.

    A relation's ``valid_from`` is ``stated_at`` (naive UTC), unless its sentence
    names a year ("in 2019 I moved to Berlin": that date, when not later) or is a
    plan that names a later time ("I'm moving to Oslo next month": that time). In a
    document (``position``: the chunk's index), each next sentence and chunk
    counts as stated ``ORDER_STEP`` later, so that a change stated inside one
    document ends what it states earlier. A relation worded as past
    (``PAST_WORDING``), one whose date phrase says when it stopped ("until
    2020"), or an end that calls its value by name (``ends_by_name``), is a past
    fact (``core.facts.PAST``): no ``valid_from``, ``valid_until`` its statement
    time. Each event gets ``valid_from``: the time its text states when not later
    than ``stated_at``, else ``stated_at``.
    """
    when = as_utc(stated_at) or stated_at
    events = tuple(
        e.model_copy(update={"valid_from": _event_time(e.time, e.time_text, when)})
        for e in extraction.events
    )
    if not extraction.relations:
        return extraction.model_copy(update={"events": events}) if events else extraction
    entities = {e.id: e for e in extraction.entities}
    times = _sentence_times(extraction.relations, when, position)
    relations: list[Relation] = []
    for r in extraction.relations:
        stated = times[r.sentence_start or 0]
        value = entities.get(r.target_id)
        past = (
            PAST_WORDING.search(r.raw_predicate) is not None
            or ends_by_name(r.predicate, value)
            or _held_until(r, when)
        )
        relations.append(
            r.model_copy(
                update={
                    "valid_from": None if past else stated,
                    "valid_until": stated if past else None,
                    "family": r.family or family_of(r.predicate, value.name if value else ""),
                }
            )
        )
    return extraction.model_copy(update={"relations": tuple(relations), "events": events})


def _held_until(relation: Relation, when: datetime) -> bool:
    """Whether ``relation``'s date phrase says when it stopped, at a time not
    later than ``when`` ("I worked at Acme until 2020"): a past fact."""
    day = as_utc(relation.timestamp)
    return day is not None and day <= when and _says_until(relation)


def _says_until(relation: Relation) -> bool:
    """Whether ``relation``'s date phrase is when it stops ("until 2020", "till
    March"), not when it starts."""
    text = relation.time_text
    if not text:
        return False
    if _UNTIL.match(text):
        return True
    at = relation.context.find(text)
    return at > 0 and _UNTIL_BEFORE.search(relation.context, max(0, at - 16), at) is not None


def _event_time(time: datetime, time_text: str | None, when: datetime) -> datetime:
    """An event is known since the time its text states, when not later than the
    statement ("in 2019"), else since the statement."""
    day = as_utc(time) or time
    return day if time_text and day <= when else when


def _sentence_times(
    relations: Iterable[Relation], when: datetime, position: int | None
) -> dict[int, datetime]:
    """Sentence start -> the time its relations were stated. A sentence that names
    a year not after ``when`` is stated then; one worded as a plan or in the
    progressive (``FUTURE_WORDING``) that names a later time holds from that time.
    In a document, the sentences count in reading order: each ``ORDER_STEP``
    after the one before, and one that comes before a dated sentence counts as
    before that date."""
    dated: dict[int, datetime] = {}
    later: dict[int, datetime] = {}  # plans: from the later time they name
    for r in relations:
        day = as_utc(r.timestamp)
        if day is None or not r.time_text:
            continue
        if day > when and FUTURE_WORDING.search(r.raw_predicate):
            if not _says_until(r):  # "I'll stay in Lyon until June": from now
                later.setdefault(r.sentence_start or 0, day)
        elif _YEAR.search(r.time_text) and day <= when:
            dated.setdefault(r.sentence_start or 0, day)
    starts = sorted({r.sentence_start or 0 for r in relations})
    if position is None:
        return {at: later.get(at) or dated.get(at, when) for at in starts}
    out: dict[int, datetime] = {}
    bound: datetime | None = None
    for rank, at in reversed(list(enumerate(starts))):
        if at in later:  # after the document's time: outside its reading order
            out[at] = later[at]
            continue
        time = dated.get(at, when + ORDER_STEP * (position * _PER_CHUNK + min(rank, _PER_CHUNK)))
        if bound is not None and time >= bound:
            time = bound - ORDER_STEP
        out[at] = bound = time
    return out


def statement_times(
    chunks: Iterable[ChunkRecord], created: Mapping[str, datetime | None]
) -> dict[str, Stated]:
    """Chunk id -> when its words were stated: the message's timestamp, else its
    item's ``created`` time (a document's ``created_at``), else the ingest time;
    a document's chunk (one that is no message) also gets its ``chunk_index``."""
    out = {}
    for c in chunks:
        at = _time(c.timestamp) or created.get(c.data_id) or _time(c.created_at) or _now()
        message = bool(c.message_ids or c.speaker)
        out[c.id] = Stated(at, None if message else c.chunk_index)
    return out


def _time(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:  # checked where the chunk was read; an odd value dates nothing
        return None


def _now() -> datetime:
    return datetime.now(UTC)
