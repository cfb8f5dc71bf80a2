"""The search types recall() understands: the built-ins and the registered names.

A search type is named by a string. The built-ins (the names Cognee's docs define)
are ``SearchType`` members (a ``StrEnum``, so each is also its name); a registered
type is its plain name. This module keeps the names only: the classes behind them
live in ``retrievers.registry``, which adds a name here when it registers one, so
every surface that validates a ``query_type`` or a router rule accepts it.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, TypeAlias

from pydantic import Field


class SearchType(StrEnum):
    """How recall() retrieves: one value per built-in retriever."""

    SUMMARIES = "SUMMARIES"
    CHUNKS = "CHUNKS"
    RAG_COMPLETION = "RAG_COMPLETION"
    TRIPLET_COMPLETION = "TRIPLET_COMPLETION"
    GRAPH_COMPLETION = "GRAPH_COMPLETION"
    GRAPH_SUMMARY_COMPLETION = "GRAPH_SUMMARY_COMPLETION"
    CYPHER = "CYPHER"
    NATURAL_LANGUAGE = "NATURAL_LANGUAGE"
    GRAPH_COMPLETION_COT = "GRAPH_COMPLETION_COT"
    GRAPH_COMPLETION_CONTEXT_EXTENSION = "GRAPH_COMPLETION_CONTEXT_EXTENSION"
    GRAPH_COMPLETION_DECOMPOSITION = "GRAPH_COMPLETION_DECOMPOSITION"
    FEELING_LUCKY = "FEELING_LUCKY"
    TEMPORAL = "TEMPORAL"
    CODING_RULES = "CODING_RULES"
    CHUNKS_LEXICAL = "CHUNKS_LEXICAL"
    HYBRID_COMPLETION = "HYBRID_COMPLETION"
    AGENTIC_COMPLETION = "AGENTIC_COMPLETION"
    BROAD = "BROAD"
    GRAPH_REPORT = "GRAPH_REPORT"


NAME_PATTERN = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
"""What every search type's name looks like: upper-case letters, digits and underscores,
starting with a letter, at most 64 characters (the built-ins' own form)."""

SearchTypeName: TypeAlias = str
"""A search type's name: the ``SearchType`` member of a built-in, else the registered name."""

SearchTypeField = Annotated[
    SearchType | Annotated[str, Field(pattern=f"^{NAME_PATTERN.pattern}$")],
    Field(union_mode="left_to_right"),
]
"""A search type in a pydantic model: built-in names come back as ``SearchType`` members,
other names must have ``NAME_PATTERN``'s form."""

# Search types that query Cypher and so obey ALLOW_CYPHER_QUERY.
CYPHER_SEARCH_TYPES = frozenset({SearchType.CYPHER, SearchType.NATURAL_LANGUAGE})

RESERVED_NAMES = frozenset({"AUTO"})
"""Names no search type may take: they mean something else where a type is asked for."""

_registered: dict[str, None] = {}  # names added by retrievers.registry, in order


def search_type_names() -> tuple[SearchTypeName, ...]:
    """Every search type recall() accepts now: the built-ins, then registered names."""
    return (*SearchType, *_registered)


def check_new_name(name: object) -> str:
    """``name`` if it may name a new search type.

    Raises:
        ValueError: not a string of ``NAME_PATTERN``'s form, or a built-in's name.
    """
    if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
        hint = ""
        if isinstance(name, str):
            upper = re.sub(r"[^A-Z0-9_]+", "_", name.strip().upper()).strip("_")
            if NAME_PATTERN.fullmatch(upper):
                hint = f" such as {upper!r}"
        raise ValueError(
            f"A search type's name is upper-case letters, digits and underscores, "
            f"starting with a letter (at most 64 characters), like CHUNKS; got {name!r}. "
            f"Pass a name of that form{hint}."
        )
    if name in SearchType.__members__:
        raise ValueError(
            f"{name} is a built-in search type and cannot be registered again; "
            "pick another name for your retriever."
        )
    if name in RESERVED_NAMES:
        raise ValueError(
            f"{name} is reserved (the MCP recall tool reads 'auto' as: let the router "
            "pick); pick another name for your retriever."
        )
    return name


def add_name(name: str) -> None:
    """Accept ``name`` as a search type from now on (``retrievers.registry`` calls this)."""
    _registered[check_new_name(name)] = None


def remove_name(name: str) -> None:
    """Stop accepting a registered ``name`` (a built-in cannot be removed)."""
    _registered.pop(name, None)


def parse_search_type(value: object) -> SearchTypeName:
    """A search type's name from a ``SearchType`` or a name (any case).

    Returns:
        The ``SearchType`` member for a built-in, the registered name otherwise.

    Raises:
        ValueError: ``value`` is no built-in or registered search type's name (or no
            name at all); the message lists the choices.
    """
    if isinstance(value, SearchType):
        return value
    if isinstance(value, str):
        name = value.strip().upper()
        if name in SearchType.__members__:
            return SearchType(name)
        if name in _registered:
            return name
    choices = ", ".join(search_type_names())
    raise ValueError(f"Unknown search type {value!r}. Use one of: {choices}.")
