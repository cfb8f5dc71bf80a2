"""The filters of a tenant listing (v1's ``/list/data``, v2's ``context/list``):
exact values, ANDed, over three groups of a source: the database attributes (v1's
``tenant_metadata``, v2's ``metadata``), the per-source metadata (v1's
``document_metadata``, v2's ``additional_metadata``) and the source's own fields
(``source_fields``: ``SOURCE_FIELDS``).

A filter that could never match as written is refused before anything is read
(``SourceFilter.check``), never answered with an empty page: an operator object
where a value goes, a source field that does not exist or a value that is not a
string there, or an attribute compared with a value its declared type cannot hold.
A filter also says what a store can look for (``SourceFilter.holding``), so a
listing reads the items that may pass, not every item (``source_rows.select``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from recall_engine.read.attributes import MAX_CONDITIONS
from recall_engine.tenants.attribute_kinds import Attributes
from recall_engine.tenants.errors import InvalidFilterError

SOURCE_FIELDS = ("title", "type", "description", "url", "timestamp")
"""The source's own fields that ``source_fields`` may name."""
_STORED_AS_LISTED = ("type", "description", "url")
"""Source fields that a listing shows as the stored source record holds them (a
title may come from the item's name, a timestamp from its upload time)."""
_OPERATOR_NAMES = ("equals", "contains", "contains_any")
_KIND_CHECKED = ("text", "number", "bool")
"""Declared kinds whose values a listing checks (a list or JSON field is compared
as stored)."""


@dataclass(frozen=True)
class SourceFilter:
    """Exact values a listed source must hold, per group (see the module).

    ``names`` spells the three groups as the request does (attributes, per-source
    metadata, source fields), for messages."""

    attributes: Mapping[str, object] = field(default_factory=dict)
    additional: Mapping[str, object] = field(default_factory=dict)
    source_fields: Mapping[str, object] = field(default_factory=dict)
    names: tuple[str, str, str] = ("tenant_metadata", "document_metadata", "source_fields")

    def _groups(self) -> tuple[tuple[str, Mapping[str, object]], ...]:
        return tuple(
            zip(self.names, (self.attributes, self.additional, self.source_fields), strict=True)
        )

    def check(self, attributes: Attributes) -> None:
        """That every field of the filter can match: at most ``MAX_CONDITIONS``
        fields, no operator objects, source fields among ``SOURCE_FIELDS`` with a
        string (or null), and a declared attribute compared with a value of its kind.

        Args:
            attributes: the database's declared attributes.

        Raises:
            InvalidFilterError: naming the field and what it takes.
        """
        count = sum(len(wanted) for _, wanted in self._groups())
        if count > MAX_CONDITIONS:
            raise InvalidFilterError(
                f"filters name {count} fields; at most {MAX_CONDITIONS} are allowed."
            )
        group_of_attributes, _, group_of_fields = self.names
        for group, wanted in self._groups():
            for key, value in wanted.items():
                where = f"filters.{group} {key!r}"
                if isinstance(value, Mapping) and value and all(_is_operator(k) for k in value):
                    raise InvalidFilterError(
                        f"{where}: a listing matches exact values, and {{{', '.join(value)}}} "
                        "is an operator; send the value itself (to compare with operators, use "
                        "/query with attributes)."
                    )
                if group == group_of_fields:
                    _check_source_field(where, key, value, per_source=self.names[1])
                elif group == group_of_attributes and attributes.kind_of(key) in _KIND_CHECKED:
                    attributes.check(key, "$eq", [value], where=where, spelled={"$eq": "a listing"})

    def passes(self, entry: Mapping[str, Any]) -> bool:
        """Whether a listed source (``source_rows.Entry``) holds every value."""
        return (
            _holds(entry["tenant_metadata"], self.attributes)
            and _holds(entry["document_metadata"], self.additional)
            and _holds(entry, self.source_fields)
        )

    def holding(self) -> list[tuple[str, str]]:
        """``(key, string value)`` pairs that the stored metadata of every source
        that passes holds at some level: what a store can look for."""
        pairs = [
            (str(k), v)
            for wanted in (self.attributes, self.additional)
            for k, v in wanted.items()
            if isinstance(v, str)
        ]
        pairs += [
            (k, v)
            for k, v in self.source_fields.items()
            if k in _STORED_AS_LISTED and isinstance(v, str)
        ]
        return pairs


def _check_source_field(where: str, key: str, value: object, *, per_source: str) -> None:
    if key not in SOURCE_FIELDS:
        raise InvalidFilterError(
            f"{where}: not a source field; use one of {', '.join(SOURCE_FIELDS)} "
            f"(filter per-source metadata under filters.{per_source})."
        )
    if not isinstance(value, str | None):
        raise InvalidFilterError(f"{where}: takes a string, got {type(value).__name__}.")


def _is_operator(key: object) -> bool:
    return str(key).startswith("$") or key in _OPERATOR_NAMES


def _holds(stored: Mapping[str, object], wanted: Mapping[str, object]) -> bool:
    return all(_same(stored.get(k), v) for k, v in wanted.items())


def _same(stored: object, wanted: object) -> bool:
    """Equal as JSON values: a boolean equals a boolean only (JSON's true is not 1)."""
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return type(stored) is type(wanted) and stored == wanted
    return stored == wanted
