"""What full_recall / recall_preferences put around recall()'s pipeline: the
request's ``metadata_filters`` as the reader's filter, and ``alpha`` ("auto"
included), which the lanes (``tenants.lanes``) take as the dense list's share of
the two lists' weight (0.5 is HYBRID_COMPLETION's own balance). Ranking, recency
and tense are the pipeline's."""

from __future__ import annotations

import math
from collections.abc import Mapping

import regex

from recall_engine.core.metadata import ADDITIONAL_KEY, TENANT_KEY
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.errors import InvalidFilterError

_QUOTED = regex.compile(r"\"[^\"]+\"|“[^”]+”")
_IDENTIFIER = regex.compile(
    r"\b(?:\p{L}+[_\-]?\p{N}+\w*|\p{N}+[_\-]\w+|\w*_\w+|\p{Lu}{2,}\p{N}*|\p{Ll}+\p{Lu}\w*)\b"
)
_QUESTION = regex.compile(
    r"^\s*(?:who|whom|whose|what|when|where|why|how|which|is|are|was|were|do|does|did|can|"
    r"could|should|would|will|tell|explain|describe)\b",
    regex.IGNORECASE,
)
_WORD = regex.compile(r"[\p{L}\p{N}]+")


def parse_filters(filters: Mapping[str, object] | None, filterable: frozenset[str]) -> ChunkFilter:
    """``metadata_filters`` as a filter: AND of exact equalities.

    Raises:
        InvalidFilterError: a top-level key that is not a tenant field declared
            with ``enable_match``, an operator (``$gte``, ``$in``, ...), or a
            value that is not a scalar.
    """
    pairs: list[tuple[tuple[str, ...], object]] = []
    for key, value in (filters or {}).items():
        if key == ADDITIONAL_KEY:
            if not isinstance(value, Mapping):
                raise InvalidFilterError(
                    "metadata_filters.additional_metadata must be an object of field: value "
                    f"equalities, got {type(value).__name__}."
                )
            for inner, wanted in value.items():
                _check(f"additional_metadata.{inner}", inner, wanted)
                pairs.append(((ADDITIONAL_KEY, inner), wanted))
            continue
        _check(key, key, value)
        if key not in filterable:
            declared = ", ".join(sorted(filterable)) or "none"
            raise InvalidFilterError(
                f"metadata_filters key {key!r} is not a tenant metadata field declared with "
                f"enable_match (filterable fields: {declared}); declare it in the tenant's "
                "metadata_schema, or put per-source fields under 'additional_metadata'."
            )
        pairs.append(((TENANT_KEY, key), value))
    return ChunkFilter(equals=tuple(pairs))


def _check(label: str, key: str, value: object) -> None:
    if key.startswith("$"):
        raise InvalidFilterError(
            f"metadata_filters {label!r}: operators are not supported; filters are exact "
            "equality only (field: value)."
        )
    if isinstance(value, Mapping | list | tuple):
        raise InvalidFilterError(
            f"metadata_filters {label!r}: operators, ranges, lists and nested objects "
            "($gte, $in, $regex, ...) are not supported; pass one scalar value to match exactly."
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidFilterError(f"metadata_filters {label!r}: {value} is not a JSON value.")


def choose_alpha(query: str, *, has_rare_term: bool) -> float:
    """Alpha for ``"auto"``: quoted phrases and identifiers lean keyword, rare
    terms lean keyword, natural-language questions lean semantic."""
    words = _WORD.findall(query)
    if _QUOTED.search(query):
        return 0.2
    if _IDENTIFIER.search(query):
        return 0.3
    question = bool(_QUESTION.match(query)) or query.rstrip().endswith("?")
    if has_rare_term:
        return 0.6 if question else 0.4
    if question and len(words) >= 3:
        return 0.85
    return 0.5 if len(words) <= 2 else 0.7


async def has_rare_term(reader: TenantReader, query: str) -> bool:
    """Some query term occurs in at most 1% of the chunks (and at least one)."""
    total = await reader.count()
    if total == 0:
        return False
    frequencies = await reader.term_frequencies(query)
    limit = max(1, int(total * 0.01))
    return any(0 < df <= limit for df in frequencies.values())
