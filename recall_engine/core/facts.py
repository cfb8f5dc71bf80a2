"""Facts with time: what a relation says, since when, and until what replaced it.

A relation is a *fact* stated at a time (``valid_from``: the message's timestamp,
the document's ``created_at``, else the ingest time). Some facts hold one value at
a time for their subject: where one lives, one's job, a favourite dish (their
``family``, assigned by ``graph.supersession``). Among the facts of one subject
and family, a later statement with a new value ends the earlier ones: they get
``valid_until`` (the later statement's time), ``superseded_by`` (its relation id)
and ``superseded_by_chunk`` (its chunk). ``timeline`` computes that from the
facts alone, so a store recomputes a group after any write or deletion and a
``forget()`` restores what the forgotten statement had replaced.

Times are naive UTC datetimes (``as_utc``), compared in statement order, never
ingest order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field


def as_utc(value: datetime | None) -> datetime | None:
    """``value`` as a naive UTC datetime (an aware one converted; a naive one kept)."""
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone(UTC).replace(tzinfo=None)


def parse_utc(value: str | datetime | None) -> datetime | None:
    """An ISO 8601 time (as stored) as a naive UTC datetime; None for none."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return as_utc(value)
    return as_utc(datetime.fromisoformat(value))


def valid_at(valid_from: datetime | None, valid_until: datetime | None, when: datetime) -> bool:
    """Whether a fact held at ``when``: ``valid_from <= when < valid_until``
    (an unknown start counts as always; no end as still holding)."""
    when = as_utc(when) or when
    if valid_from is not None and as_utc(valid_from) > when:  # type: ignore[operator]
        return False
    return valid_until is None or when < as_utc(valid_until)  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class Statement:
    """What ``timeline`` needs of one fact of a (subject, family) group."""

    id: str
    target_id: str
    chunk_id: str
    valid_from: datetime | None
    confidence: float = 1.0
    ends: bool = False
    """An end without a new value ("I quit nursing"): see ``ENDED_PREFIX``."""
    past: bool = False
    """A value said to have held before its statement ("I used to live in Lyon"):
    see ``PAST``."""
    kind: str | None = None
    """What sort of value it is, when its predicate says (``kind_of``): a switch
    replaces only values of its own kind, an end that names no value ends the
    held value of that kind."""


@dataclass(frozen=True, slots=True)
class Validity:
    """How long a fact held: ``valid_until`` and what replaced it (all None: current)."""

    valid_until: datetime | None = None
    superseded_by: str | None = None
    superseded_by_chunk: str | None = None


CURRENT = Validity()

ENDED_PREFIX = "ended_"
"""A predicate ``ended_<family>`` states that a value stopped holding, with no new
one ("I quit nursing", "I no longer live in Lyon"). Such a fact ends the current
facts with its object; when its object was never a value of the family and only
describes one ("nursing" for a job stated as "nurse", "my job", "partner"), it
ends every current one. An end that calls its value by name ("I don't live in
Rome anymore") is also a past statement (``PAST``, set by
``graph.supersession.stamp``): it ends that value if it still holds, and nothing
else. An end never holds itself: its ``valid_until`` is its own statement time."""


PAST = "past"
"""A fact stated as over by the time it is stated ("I used to live in Lyon") is
stored with no ``valid_from`` (its start is unknown) and ``valid_until`` its
statement time: it held before then, it never ends a value other than its own,
and it ends its own value if that still held."""

MULTI_VALUED_FAMILIES = frozenset({"pet", "child", "hobby", "instrument", "language", "sport"})
"""Families whose subject holds several values at once (pets, children, hobbies):
a new value adds to them, and only an explicit end that names a value held ("Rex
died", "we gave Shadow away": an ``ended_pet`` fact) ends one. Every other family
holds one value at a time: a new value replaces the current one."""


KINDED_PREDICATES = ("prefers", "has_pet", "ended_preference", "ended_pet")
"""Predicates that may carry the kind of their value as a suffix: ``prefers_phone``
("I switched my phone to a Pixel"), ``has_pet_cat`` ("a cat named Shadow"),
``ended_pet_dog`` ("I no longer have a dog")."""

ANY_KIND = "pet"
"""An end of this kind ("we gave our pet away") may end a held value of any kind."""


def kind_of(predicate: str) -> str | None:
    """The kind a ``KINDED_PREDICATES`` predicate carries (``has_pet_cat`` -> cat), or None."""
    for base in KINDED_PREDICATES:
        if predicate.startswith(base + "_") and len(predicate) > len(base) + 1:
            return predicate[len(base) + 1 :]
    return None


def is_multi_valued(family: str | None) -> bool:
    """Whether ``family`` holds several values at once (``MULTI_VALUED_FAMILIES``)."""
    return family in MULTI_VALUED_FAMILIES


def is_past(valid_from: datetime | None, valid_until: datetime | None) -> bool:
    """Whether a stored fact is a past one (``PAST``): an end and no start."""
    return valid_from is None and valid_until is not None


def is_ending(predicate: str) -> bool:
    """Whether ``predicate`` states an end (``ENDED_PREFIX``)."""
    return predicate.startswith(ENDED_PREFIX)


def timeline(statements: Sequence[Statement], *, multi_valued: bool = False) -> dict[str, Validity]:
    """The validity of every fact of one subject and family.

    Facts are taken in statement-time order; facts stated at the same time (one
    message: "moved to Paris, I live in Montmartre now") are one statement and
    never replace each other. A statement whose values are all held already is
    a restatement and ends nothing; otherwise it ends every current fact of its
    kind whose value it does not repeat. A fact's kind is the one its predicate
    carries (``kind_of``: "switched my phone to a Pixel"), else that of the held
    value its statement ends ("switched from coffee to tea": coffee's), else
    none: facts of different kinds coexist (a drink and a phone). An end
    statement (``ENDED_PREFIX``) ends the values it names and never holds. A
    past statement (``PAST``) held until its own time and ends only its own value;
    so does an end that is also past (one that calls its value by name).
    A fact with no time neither ends nor is ended.

    Args:
        statements: The facts of one (subject, family) group.
        multi_valued: The family holds several values at once
            (``MULTI_VALUED_FAMILIES``): a new value ends nothing, only an end
            statement or a past statement of that value ends it; an end that
            names only a kind ends the one held value of that kind.

    Returns:
        Relation id -> ``Validity``, for every statement given.
    """
    out = {s.id: CURRENT for s in statements}
    dated = sorted(
        (s for s in statements if s.valid_from is not None),
        key=lambda s: (as_utc(s.valid_from), s.chunk_id, s.id),
    )
    current: list[Statement] = []
    seen: set[str] = set()
    kinds: dict[str, str | None] = {}  # fact id -> its kind (own, else its chain's)
    value_kinds: dict[str, str | None] = {}  # value -> the kind it was last held as
    start = 0
    while start < len(dated):
        when = as_utc(dated[start].valid_from)
        end = start
        while end < len(dated) and as_utc(dated[end].valid_from) == when:
            end += 1
        group, start = dated[start:end], end
        holding = [s for s in group if not s.ends and not s.past]
        values = {s.target_id for s in holding}
        kind = _group_kind(group, seen, value_kinds)
        ending = _ended(group, current, seen, multi_valued, kinds, kind) - values
        ending |= {s.target_id for s in group if s.past} - values
        replacing = bool(holding) and not multi_valued
        alike = {f.target_id for f in current if kinds.get(f.id) == kind}
        if ending or (replacing and not values <= alike):
            lead = min(holding or group, key=lambda s: (-s.confidence, s.chunk_id, s.id))
            ended = Validity(when, lead.id, lead.chunk_id)
            for fact in current:
                if (replacing and fact.target_id in alike - values) or fact.target_id in ending:
                    out[fact.id] = ended
            current = [f for f in current if out[f.id] == CURRENT]
        new = min(holding, key=lambda s: (-s.confidence, s.id)) if holding else None
        for fact in group:
            if fact.ends:
                out[fact.id] = Validity(when)
            elif fact.past:  # "I used to live in Lyon, now I live in Paris": Paris replaced it
                out[fact.id] = Validity(when, *((new.id, new.chunk_id) if new else ()))
        for fact in holding:
            kinds[fact.id] = value_kinds[fact.target_id] = fact.kind if multi_valued else kind
        seen |= {s.target_id for s in group}
        current += holding
    return out


def _group_kind(
    group: list[Statement], seen: set[str], value_kinds: dict[str, str | None]
) -> str | None:
    """The kind of one statement's values: the one its predicates say, else the
    kind of the held value it ends ("switched from coffee to tea": coffee's)."""
    said = next((s.kind for s in group if s.kind and not s.past), None)
    if said is not None:
        return said
    ended = (value_kinds.get(s.target_id) for s in group if s.ends and s.target_id in seen)
    return next(ended, None)


def _ended(
    group: list[Statement],
    current: list[Statement],
    seen: set[str],
    multi_valued: bool,
    kinds: dict[str, str | None],
    kind: str | None,
) -> set[str]:
    """The values the end statements of ``group`` end: their own objects when the
    family has held those, else every current value of the statement's ``kind``
    (of a family of several values: the one held value of the kind the end names,
    ``_one_of_kind``). A past end is left to the past statements' rule."""
    out: set[str] = set()
    for fact in group:
        if not fact.ends or fact.past:  # a named end ends only its own value (PAST)
            continue
        if fact.target_id in seen:
            out.add(fact.target_id)
        elif multi_valued:
            out |= _one_of_kind(fact.kind, current)
        else:
            out |= {s.target_id for s in current if kinds.get(s.id) == kind}
    return out


def _one_of_kind(kind: str | None, current: list[Statement]) -> set[str]:
    """Which held value an end that names only a kind ends ("I no longer have a
    dog"): the one value of that kind, else the one value whose kind is not known;
    none when no kind is named or several values fit (which one ended is not
    said). An end of ``ANY_KIND`` ends the one value held, if only one is."""
    if kind is None:
        return set()
    held = {s.target_id: s.kind for s in current}
    if kind == ANY_KIND:
        return set(held) if len(held) == 1 else set()
    same = {v for v, k in held.items() if k == kind}
    unknown = {v for v, k in held.items() if k is None}
    if same:
        return same if len(same) == 1 else set()
    return unknown if len(unknown) == 1 else set()


class FactRef(BaseModel):
    """Another fact, named by its predicate and object (what replaced a fact)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The relation id.")
    predicate: str
    object: str
    chunk_id: str | None = None


class Fact(BaseModel):
    """One stated fact ``subject -[predicate]-> object`` and how long it held.

    The contract of the time-aware graph:

    - ``valid_from``: when it was stated (the message's timestamp, the document's
      ``created_at``, else the ingest time), naive UTC.
    - ``valid_until``: when a later statement of the same subject and ``family``
      replaced it (that statement's time); None while it holds.
    - ``superseded_by``: the facts of the replacing statement (its relation ids,
      predicates and objects); ``superseded_by_chunk`` its chunk.
    - ``current``: no later statement has replaced it.

    ``valid_at(t)`` is ``valid_from <= t < valid_until``. A fact without a
    ``family`` (a visit, a friendship) is never replaced. A statement that a
    value stopped holding with no new one ("I quit nursing": the relation
    ``ended_job nursing``, ``ENDED_PREFIX``) is not listed as a fact: it is what
    ``superseded_by`` names on the facts it ended.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The relation id.")
    subject: str
    subject_id: str
    predicate: str
    object: str
    object_id: str
    family: str | None = Field(default=None, description="The aspect: home, job, ...")
    context: str = Field(default="", description="The sentence that states it.")
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    superseded_by: tuple[FactRef, ...] = ()
    superseded_by_chunk: str | None = None
    current: bool = True
    chunk_id: str | None = None
    data_id: str | None = None
    dataset_id: str = ""
    dataset_name: str | None = None
    text: str | None = Field(default=None, description="The source chunk's text.")

    def valid_at(self, when: datetime) -> bool:
        """Whether this fact held at ``when``."""
        return valid_at(self.valid_from, self.valid_until, when)

    def describe(self) -> str:
        """One line, e.g. ``Ann lives_in Lyon (from 2023-01-05; until 2024-03-01;
        superseded by: moved_to Paris)``."""
        spans = []
        if self.valid_from is not None:
            spans.append(f"from {self.valid_from.date().isoformat()}")
        if self.valid_until is not None:
            spans.append(f"until {self.valid_until.date().isoformat()}")
        if self.superseded_by:
            later = ", ".join(f"{r.predicate} {r.object}" for r in self.superseded_by)
            spans.append(f"superseded by: {later}")
        elif self.current and self.family:
            spans.append("current")
        when = f" ({'; '.join(spans)})" if spans else ""
        return f"{self.subject} {self.predicate} {self.object}{when}"
