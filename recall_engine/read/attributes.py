"""``AttributeFilter``: a MongoDB-like query over chunk metadata.

Comparisons ``$eq $ne $gt $gte $lt $lte $in $nin $exists`` on a field, and the
logical ``$and $or $nor`` (lists of queries) and ``$not`` (one query, or one
field's operators). A bare value is ``$eq``; several fields in one object are ANDed::

    {"dept": {"$in": ["eng", "ops"]}, "level": {"$gte": 3}}
    {"$or": [{"dept": "eng"}, {"level": {"$not": {"$lt": 3}}}]}

Three comparisons take strings only:

- ``$iin``: a list of strings, matched ignoring case (Unicode case folding, so
  ``"STRASSE"`` matches ``"Straße"``): ``{"title": {"$iin": ["refunds"]}}``.
- ``$contains``: one string that is a member of the field: of a list field, or of a
  comma-joined string field (``"billing, support"`` holds ``"support"``, each member
  stripped of spaces; never a substring).
- ``$contains_any``: a list of strings, any one of them a member as for ``$contains``.

A field name is looked up as it is, else, when it holds dots, as a path into nested
objects (``"additional_metadata.kind"``). An ordering (``$gt`` ...) holds only
between two numbers or two strings, never across types, and a missing field fails
every comparison but ``$ne``, ``$nin`` and ``$exists: false``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from recall_engine.core.errors import InvalidInputError

MAX_VALUES = 500
MAX_CONDITIONS = 64
MAX_DEPTH = 8

Comparison = Literal[
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$in",
    "$nin",
    "$exists",
    "$iin",
    "$contains",
    "$contains_any",
]
Logical = Literal["$and", "$or", "$nor", "$not"]
COMPARISONS: frozenset[str] = frozenset(Comparison.__args__)  # type: ignore[attr-defined]
LOGICAL: frozenset[str] = frozenset(Logical.__args__)  # type: ignore[attr-defined]
_MISSING = object()


class Condition(BaseModel):
    """One comparison of one field."""

    model_config = ConfigDict(frozen=True)

    field: str
    op: Comparison
    value: object = None

    @property
    def operands(self) -> tuple[object, ...]:
        """The values the field is compared with: a list operator's, else the one
        value (``$exists``: none)."""
        if self.op == "$exists":
            return ()
        if isinstance(self.value, tuple | frozenset):
            return tuple(self.value)
        return (self.value,)

    def holds(self, metadata: Mapping[str, object]) -> bool:
        found = lookup(metadata, self.field)
        if self.op == "$exists":
            return (found is not _MISSING) is bool(self.value)
        if self.op == "$ne":
            return found is _MISSING or not _equal(found, self.value)
        if self.op == "$nin":
            return found is _MISSING or not any(
                _equal(found, v) for v in cast("Iterable[object]", self.value)
            )
        if found is _MISSING:
            return False
        if self.op == "$eq":
            return _equal(found, self.value)
        if self.op == "$in":
            return any(_equal(found, v) for v in cast("Iterable[object]", self.value))
        if self.op == "$iin":
            return any(s.casefold() in cast("frozenset[str]", self.value) for s in _strings(found))
        if self.op == "$contains":
            return self.value in _members(found)
        if self.op == "$contains_any":
            return not _members(found).isdisjoint(cast("frozenset[str]", self.value))
        return _ordered(found, self.op, self.value)


class AttributeFilter(BaseModel):
    """A query: all of ``conditions`` and ``parts`` (for ``$and``) hold, or any of
    ``parts`` (``$or``), or none of them (``$nor``; ``$not`` is a ``$nor`` of one)."""

    model_config = ConfigDict(frozen=True)

    mode: Literal["$and", "$or", "$nor"] = "$and"
    conditions: tuple[Condition, ...] = ()
    parts: tuple[AttributeFilter, ...] = ()

    def matches(self, metadata: Mapping[str, object]) -> bool:
        """Whether ``metadata`` (a chunk's) satisfies the query."""
        results = (
            *(c.holds(metadata) for c in self.conditions),
            *(p.matches(metadata) for p in self.parts),
        )
        if self.mode == "$or":
            return any(results)
        if self.mode == "$nor":
            return not any(results)
        return all(results)

    def comparisons(self) -> Iterator[Condition]:
        """Every comparison of the query, at any depth."""
        yield from self.conditions
        for part in self.parts:
            yield from part.comparisons()

    def and_(self, other: AttributeFilter | None) -> AttributeFilter:
        """Both queries at once."""
        return self if other is None else AttributeFilter(parts=(self, other))

    @classmethod
    def parse(cls, query: object) -> AttributeFilter:
        """A query object as a filter.

        Raises:
            InvalidInputError: not an object, an unknown ``$`` operator, an operand of
                the wrong type (``$in`` needs a list of at most ``MAX_VALUES`` values,
                ``$iin`` and ``$contains_any`` such a list of strings, ``$contains`` one
                string, ``$gt`` one number or string, ``$exists`` a bool), more than
                ``MAX_CONDITIONS`` comparisons or ``MAX_DEPTH`` levels.
        """
        counter = [0]
        return _parse(query, counter, depth=0, where="the filter")


def lookup(metadata: Mapping[str, object], field: str) -> object:
    """``field`` of ``metadata``: the key itself, else a dotted path into nested objects."""
    if field in metadata:
        return metadata[field]
    if "." not in field:
        return _MISSING
    found: object = metadata
    for key in field.split("."):
        if not isinstance(found, Mapping) or key not in found:
            return _MISSING
        found = found[key]
    return found


def _parse(query: object, counter: list[int], *, depth: int, where: str) -> AttributeFilter:
    if depth > MAX_DEPTH:
        raise InvalidInputError(f"{where} nests more than {MAX_DEPTH} levels; flatten it.")
    if not isinstance(query, Mapping):
        raise InvalidInputError(f"{where} must be an object, got {type(query).__name__}.")
    conditions: list[Condition] = []
    parts: list[AttributeFilter] = []
    for key, value in query.items():
        if not isinstance(key, str) or not key:
            raise InvalidInputError(f"{where}: field names must be non-empty strings, got {key!r}.")
        if key in ("$and", "$or", "$nor"):
            if not isinstance(value, list) or not value:
                raise InvalidInputError(f"{key} takes a non-empty list of queries.")
            inner = [
                _parse(v, counter, depth=depth + 1, where=f"{key}[{n}]")
                for n, v in enumerate(value)
            ]
            parts.append(AttributeFilter(mode=key, parts=tuple(inner)))  # type: ignore[arg-type]
        elif key == "$not":
            inner_not = _parse(value, counter, depth=depth + 1, where="$not")
            parts.append(AttributeFilter(mode="$nor", parts=(inner_not,)))
        elif key in COMPARISONS:
            raise InvalidInputError(
                f"{where}: {key!r} compares a field; write {{field: {{{key!r}: value}}}}."
            )
        elif key.startswith("$"):
            raise InvalidInputError(
                f"{where}: unknown operator {key!r}; use one of "
                f"{', '.join(sorted(COMPARISONS | LOGICAL))}."
            )
        else:
            parts_of_field = _field(key, value, counter, depth=depth)
            conditions.extend(c for c in parts_of_field if isinstance(c, Condition))
            parts.extend(p for p in parts_of_field if isinstance(p, AttributeFilter))
    return AttributeFilter(conditions=tuple(conditions), parts=tuple(parts))


def _field(
    name: str, value: object, counter: list[int], *, depth: int
) -> list[Condition | AttributeFilter]:
    if not (isinstance(value, Mapping) and value and all(str(k).startswith("$") for k in value)):
        return [_condition(name, "$eq", value, counter)]
    out: list[Condition | AttributeFilter] = []
    for op, operand in value.items():
        if op == "$not":
            if not isinstance(operand, Mapping) or not operand:
                raise InvalidInputError(f"{name}: $not takes an object of operators.")
            inner = _field(name, operand, counter, depth=depth + 1)
            conds = tuple(c for c in inner if isinstance(c, Condition))
            subs = tuple(p for p in inner if isinstance(p, AttributeFilter))
            out.append(
                AttributeFilter(mode="$nor", parts=(AttributeFilter(conditions=conds, parts=subs),))
            )
        elif op in COMPARISONS:
            out.append(_condition(name, op, operand, counter))
        else:
            raise InvalidInputError(
                f"{name}: unknown operator {op!r}; use one of {', '.join(sorted(COMPARISONS))} "
                "or $not."
            )
    return out


def _condition(name: str, op: str, operand: object, counter: list[int]) -> Condition:
    counter[0] += 1
    if counter[0] > MAX_CONDITIONS:
        raise InvalidInputError(
            f"the filter holds more than {MAX_CONDITIONS} comparisons; send fewer."
        )
    if op in ("$in", "$nin"):
        if not isinstance(operand, list) or len(operand) > MAX_VALUES:
            raise InvalidInputError(f"{name}: {op} takes a list of at most {MAX_VALUES} values.")
        for item in operand:
            _check_scalar(name, op, item)
        return Condition(field=name, op=op, value=tuple(operand))  # type: ignore[arg-type]
    if op in ("$iin", "$contains_any"):
        if (
            not isinstance(operand, list)
            or len(operand) > MAX_VALUES
            or not all(isinstance(v, str) for v in operand)
        ):
            raise InvalidInputError(f"{name}: {op} takes a list of at most {MAX_VALUES} strings.")
        folded = (v.casefold() for v in operand) if op == "$iin" else operand
        return Condition(field=name, op=op, value=frozenset(folded))  # type: ignore[arg-type]
    if op == "$contains":
        if not isinstance(operand, str):
            raise InvalidInputError(f"{name}: $contains takes one string.")
        return Condition(field=name, op="$contains", value=operand)
    if op == "$exists":
        if not isinstance(operand, bool):
            raise InvalidInputError(f"{name}: $exists takes true or false.")
        return Condition(field=name, op="$exists", value=operand)
    ordering = op in ("$gt", "$gte", "$lt", "$lte")
    if ordering and (isinstance(operand, bool) or not isinstance(operand, int | float | str)):
        raise InvalidInputError(f"{name}: {op} takes one number or string.")
    _check_scalar(name, op, operand)
    return Condition(field=name, op=op, value=operand)  # type: ignore[arg-type]


def _check_scalar(name: str, op: str, value: object) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInputError(f"{name}: {op} takes finite numbers.")
    if value is not None and not isinstance(value, str | int | float | bool):
        raise InvalidInputError(
            f"{name}: {op} compares with strings, numbers, booleans or null, "
            f"got {type(value).__name__}."
        )


Comparable = TypeVar("Comparable", str, float)


def _strings(stored: object) -> list[str]:
    """A string field as itself, a list field as its strings; else nothing."""
    if isinstance(stored, str):
        return [stored]
    if isinstance(stored, Sequence):
        return [s for s in stored if isinstance(s, str)]
    return []


def _members(stored: object) -> frozenset[str]:
    """The members ``$contains`` looks in: a list field's strings, or the parts of a
    comma-joined string."""
    if isinstance(stored, str):
        return frozenset(part.strip() for part in stored.split(","))
    return frozenset(_strings(stored))


def _equal(stored: object, wanted: object) -> bool:
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return type(stored) is type(wanted) and stored == wanted
    if isinstance(stored, Sequence) and not isinstance(stored, str):
        return any(_equal(s, wanted) for s in stored)  # a list field matches a member
    return bool(stored == wanted)


def _ordered(stored: object, op: str, wanted: object) -> bool:
    if isinstance(stored, str) and isinstance(wanted, str):
        return _compare(stored, op, wanted)
    numbers = (int, float)
    if isinstance(stored, numbers) and isinstance(wanted, numbers) and not isinstance(stored, bool):
        return _compare(stored, op, wanted)
    return False


def _compare(stored: Comparable, op: str, wanted: Comparable) -> bool:
    if op == "$gt":
        return bool(stored > wanted)
    if op == "$gte":
        return bool(stored >= wanted)
    if op == "$lt":
        return bool(stored < wanted)
    return bool(stored <= wanted)
