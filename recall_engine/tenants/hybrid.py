"""Ranking for full_recall / recall_preferences on recall()'s own lanes: the
filter, alpha ("auto" included) and recency around them.

Fast mode runs ``recall()``'s passage lane (``retrievers.passages``: dense and BM25
lists fused by the one fusion component, title signals, scores spread to
neighbouring turns); thinking mode runs GRAPH_COMPLETION's search
(``retrievers.graph_search``) and keeps its chunks. Both read through a reader bound
to the request's filter; ``alpha`` is the dense list's share of the two lists'
weight, and 0.5 is HYBRID_COMPLETION's own balance.
Recency (``read.recency``, as recall()'s ``recency_bias``): among the relevant pool,
``(1 - r) * relevance + r * recency`` with recency the source's time min-max
normalised over the pool; ``r = 1`` puts the newest relevant chunk first, ``r = 0``
leaves the ranking untouched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import regex

from recall_engine.core.hits import ChunkHit
from recall_engine.core.metadata import ADDITIONAL_KEY, TENANT_KEY
from recall_engine.core.results import source_time
from recall_engine.read import recency
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.fusion import alpha_weights
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.errors import InvalidFilterError
from retrievers.graph_search import GraphSearchConfig, graph_search
from retrievers.passages import PassageConfig, passages

POOL = recency.POOL

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


@dataclass(frozen=True)
class Ranked:
    chunk: ChunkHit
    score: float


def parse_filters(filters: Mapping[str, Any] | None, filterable: frozenset[str]) -> ChunkFilter:
    """``metadata_filters`` as a filter: AND of exact equalities.

    Raises:
        InvalidFilterError: a top-level key that is not a tenant field declared
            with ``enable_match``, an operator (``$gte``, ``$in``, ...), or a
            value that is not a scalar.
    """
    pairs: list[tuple[tuple[str, ...], Any]] = []
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


def _check(label: str, key: str, value: Any) -> None:
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


def apply_recency(ranked: list[Ranked], bias: float) -> list[Ranked]:
    """Blend in the recency of each chunk's source over the relevant pool
    (``read.recency``)."""
    pairs = recency.apply_recency(
        [(r.chunk, r.score) for r in ranked], bias, lambda c: source_time(c.metadata)
    )
    return [Ranked(chunk, score) for chunk, score in pairs]


def lane_options(alpha: float) -> PassageConfig:
    """The passage lane with ``alpha`` of the dense+BM25 weight on dense (the lane's
    default weights are 1 and 1, so the title signal keeps its share)."""
    dense, lexical = alpha_weights(alpha)
    return PassageConfig(dense_weight=2 * dense, lexical_weight=2 * lexical)


async def search(
    reader: TenantReader, vector: np.ndarray, query: str, k: int, alpha: float
) -> list[Ranked]:
    """The ``k`` best chunks the reader may return, by the passage lane."""
    hits = await passages(reader, vector, query, k, lane_options(alpha))
    return [Ranked(h, h.score) for h in hits]


async def graph_lane(
    reader: TenantReader, vector: np.ndarray, query: str, k: int, alpha: float
) -> list[Ranked]:
    """The ``k`` best chunks by GRAPH_COMPLETION's search (the passage lane plus the
    graph's signals: entity links, the walk over passages and entities, relations)."""
    dense, lexical = alpha_weights(alpha)
    options = GraphSearchConfig(dense_weight=2 * dense, lexical_weight=2 * lexical)
    # Triplets share the search's room with chunks; twice k leaves k chunks or more.
    found = await graph_search(query, vector, reader, options, top_k=2 * k)
    return [Ranked(h, h.score) for h in found.passages[:k]]


async def rank(
    reader: TenantReader,
    *,
    query: str,
    vector: np.ndarray,
    k: int,
    alpha: float,
    recency_bias: float,
    thinking: bool,
) -> list[Ranked]:
    """The ranked chunks of one search (at most ``k``): the passage lane, or in
    thinking mode the graph lane; ``reader`` is bound to the request's filter."""
    depth = max(k, POOL) if recency_bias > 0 else k
    lane = graph_lane if thinking else search
    ranked = apply_recency(await lane(reader, vector, query, depth, alpha), recency_bias)
    return ranked[:k]
