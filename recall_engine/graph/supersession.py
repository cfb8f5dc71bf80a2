"""Which facts hold one value at a time: predicate families as data.

A family is an aspect of a subject that holds one value at a time: where one
lives, whom one works for, one's job, one's relationship, one's pet (the one
spoken of as theirs now: a second pet stated later reads as a replacement), a
favourite thing, a state (mood, a symptom). Each ``FamilyRule`` maps predicates (and, for the
generic ``is_a``, the object's head noun) to a family; its ``examples`` are
test cases. ``stamp`` gives each relation of a chunk its statement time
(``valid_from``) and family; the stores then order a subject's facts of one
family by statement time and let a later value end the earlier ones
(``core.facts.timeline``). A fact with no family is never superseded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import regex

from recall_engine.core.facts import as_utc
from recall_engine.core.graph import ChunkExtraction, Relation
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
        r"ended_(?P<kind>home|employer|job|relationship)",
        examples=(
            ("I quit nursing last month.", "job"),
            ("I don't live in Lyon anymore.", "home"),
            ("I no longer work at Google.", "employer"),
        ),
    ),
    FamilyRule(
        "pet",
        "pet",
        r"has_pet",
        examples=(("I have a beagle named Biscuit.", "pet"),),
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


def stamp(extraction: ChunkExtraction, stated_at: datetime) -> ChunkExtraction:
    """``extraction`` with each relation's ``valid_from`` (``stated_at``, naive
    UTC) and ``family`` set (the extractor's own, else ``family_of``): what the
    stores order and supersede by."""
    if not extraction.relations:
        return extraction
    names = {e.id: e.name for e in extraction.entities}
    when = as_utc(stated_at)
    relations: list[Relation] = [
        r.model_copy(
            update={
                "valid_from": when,
                "family": r.family or family_of(r.predicate, names.get(r.target_id, "")),
            }
        )
        for r in extraction.relations
    ]
    return extraction.model_copy(update={"relations": tuple(relations)})


def statement_times(
    chunks: Iterable[ChunkRecord], created: Mapping[str, datetime | None]
) -> dict[str, datetime]:
    """Chunk id -> when its words were stated: the message's timestamp, else its
    item's ``created`` time (a document's ``created_at``), else the ingest time."""
    return {
        c.id: _time(c.timestamp) or created.get(c.data_id) or _time(c.created_at) or _now()
        for c in chunks
    }


def _time(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:  # checked where the chunk was read; an odd value dates nothing
        return None


def _now() -> datetime:
    return datetime.now(UTC)
