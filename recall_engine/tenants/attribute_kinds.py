"""A database's declared attributes (its ``metadata_schema``) and which filter
operators apply to each, so that a filter that could never match as written is
refused with a message instead of matching nothing.

A field's kind comes from its declared ``data_type``: VARCHAR is text, INT8 to
INT64, FLOAT and DOUBLE are numbers, BOOL a boolean, ARRAY a list, JSON an object
(a dotted name reaches into it); a field declared with no type, or another one, is
not checked. ``OPERATORS`` says which comparisons of ``read.attributes`` each kind
takes; a value compared with a field must be of its kind (``null`` always may).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from recall_engine.tenants.errors import InvalidFilterError

Kind = Literal["text", "number", "bool", "list", "json", "any"]

KIND_OF_TYPE: dict[str, Kind] = {
    "VARCHAR": "text",
    "INT8": "number",
    "INT16": "number",
    "INT32": "number",
    "INT64": "number",
    "FLOAT": "number",
    "DOUBLE": "number",
    "BOOL": "bool",
    "ARRAY": "list",
    "JSON": "json",
}
_EQUALITY = ("$eq", "$ne", "$in", "$nin", "$exists")
_ORDERING = ("$gt", "$gte", "$lt", "$lte")
_MEMBERSHIP = ("$contains", "$contains_any", "$iin")
OPERATORS: dict[Kind, tuple[str, ...]] = {
    "text": (*_EQUALITY, *_ORDERING, *_MEMBERSHIP),
    "number": (*_EQUALITY, *_ORDERING),
    "bool": _EQUALITY,
    "list": (*_EQUALITY, *_MEMBERSHIP),
    "json": _EQUALITY,
}
"""The comparisons each kind takes (a kind not listed takes every one)."""
_VALUES: dict[Kind, tuple[str, tuple[type, ...]]] = {
    "text": ("strings", (str,)),
    "number": ("numbers", (int, float)),
    "bool": ("true or false", (bool,)),
    "list": ("strings, numbers or booleans", (str, int, float, bool)),
}


@dataclass(frozen=True)
class Attribute:
    """One declared field: its name, declared type, kind and ``enable_match``."""

    name: str
    data_type: str
    kind: Kind
    matchable: bool


class Attributes:
    """The declared fields of one database, to check the filters that name them."""

    def __init__(self, schema: Sequence[Mapping[str, object]]) -> None:
        """``schema``: the database's ``metadata_schema`` as stored (field dicts)."""
        self._fields: dict[str, Attribute] = {}
        for field in schema:
            data_type = str(field.get("data_type") or "").strip().upper()
            name = str(field.get("name") or "")
            self._fields[name] = Attribute(
                name=name,
                data_type=data_type or "untyped",
                kind=KIND_OF_TYPE.get(data_type, "any"),
                matchable=bool(field.get("enable_match")),
            )

    def kind_of(self, name: str) -> Kind | None:
        """The kind of the field declared ``name`` (None: none is)."""
        found = self._fields.get(name)
        return found.kind if found is not None else None

    def declared(self, *, matchable: bool = False) -> str:
        """The names of the declared fields (with ``enable_match`` only, when asked),
        for a message."""
        names = [f.name for f in self._fields.values() if f.matchable or not matchable]
        return ", ".join(sorted(names)) or "none"

    def field(self, name: str, *, where: str, matchable: bool = False) -> Attribute:
        """The declared field ``name`` names: itself, or the JSON field a dotted name
        reaches into (as a field of any kind).

        Raises:
            InvalidFilterError: no such declared field (with ``enable_match``, when
                ``matchable``), or a dotted name into a field that is not JSON.
        """
        found = self._fields.get(name)
        if found is None and "." in name:
            head = self._fields.get(name.split(".", 1)[0])
            if head is not None and head.kind in ("json", "any"):
                found = Attribute(name, "a path into " + head.name, "any", head.matchable)
            elif head is not None:
                raise InvalidFilterError(
                    f"{where}: {head.name!r} is a {head.data_type} field, which has no "
                    f"fields of its own; only a JSON field can be filtered by path ({name!r})."
                )
        if found is None or (matchable and not found.matchable):
            need = "declared with enable_match" if matchable else "declared"
            raise InvalidFilterError(
                f"{where}: {name!r} is not a database attribute {need} in the database's "
                f"metadata_schema (filterable: {self.declared(matchable=matchable)}); "
                "declare it when creating the database, or filter per-source fields "
                "under 'additional_metadata'."
            )
        return found

    def check(
        self,
        name: str,
        op: str,
        values: Sequence[object],
        *,
        where: str,
        matchable: bool = False,
        spelled: Mapping[str, str] | None = None,
    ) -> None:
        """That comparison ``op`` of field ``name`` with ``values`` can match: the
        field is declared, takes ``op``, and each value is of its kind.

        Args:
            values: the operand's values (``$exists``: none; ``$in``: its list).
            where: what the message names first (``attributes 'level'``).
            spelled: how the caller's language spells the operators (legacy
                ``metadata_filters``: ``{"$contains": "contains", ...}``); an
                operator it does not spell is not named in the message.

        Raises:
            InvalidFilterError: naming the field, the operator and what it takes.
        """
        field = self.field(name, where=where, matchable=matchable)
        names = spelled or {o: o for o in (*_EQUALITY, *_ORDERING, *_MEMBERSHIP)}
        allowed = OPERATORS.get(field.kind)
        if allowed is not None and op not in allowed:
            takes = [o for o in (*_EQUALITY, *_ORDERING, *_MEMBERSHIP) if o in names]
            kinds = " and ".join(_TYPE_OF_KIND[k] for k, ops in OPERATORS.items() if op in ops)
            raise InvalidFilterError(
                f"{where}: {names.get(op, op)} applies to {kinds} fields only, and "
                f"{field.name!r} is declared {field.data_type}; on it use "
                f"{', '.join(names[o] for o in takes if o in allowed)}."
            )
        wanted = _VALUES.get(field.kind)
        if wanted is None or op == "$exists":
            return
        what, types = wanted
        for value in values:
            if value is None or (isinstance(value, types) and _not_bool(value, field.kind)):
                continue
            raise InvalidFilterError(
                f"{where}: {names.get(op, op)} compares {field.name!r}, declared "
                f"{field.data_type}, with {what} only, not {type(value).__name__} {value!r}."
            )


_TYPE_OF_KIND: dict[Kind, str] = {
    "text": "VARCHAR",
    "number": "number (INT, FLOAT, DOUBLE)",
    "bool": "BOOL",
    "list": "ARRAY",
    "json": "JSON",
}


def _not_bool(value: object, kind: Kind) -> bool:
    """A boolean is no number (JSON's true is not 1)."""
    return not (kind == "number" and isinstance(value, bool))
