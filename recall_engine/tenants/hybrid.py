"""Hybrid ranking for full_recall / recall_preferences: the filter, alpha
("auto" included), recency, and thinking mode's expansion and graph rerank.

Scores: ``alpha * dense + (1 - alpha) * lexical`` with both lanes normalised to
[0, 1] over the chunks that pass the filter (``TenantReader.hybrid_chunks``).
Recency: among the relevant pool (the chunks scoring at least half the best,
at most ``POOL`` of them), ``(1 - r) * relevance + r * recency`` with recency
min-max normalised over the pool; ``r = 1`` puts the newest relevant chunk
first, ``r = 0`` leaves the ranking untouched.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import regex

from recall_engine.core.hits import ChunkHit
from recall_engine.read.linking import link_entities
from recall_engine.read.tenant_reader import ChunkFilter, TenantReader
from recall_engine.storage.lexical import tokenize
from recall_engine.tenants.convert import ADDITIONAL_KEY, TENANT_KEY, source_time
from recall_engine.tenants.errors import InvalidFilterError

POOL = 100
EXPANSION_WEIGHT = 0.5
GRAPH_BOOST = 0.1

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
    frequencies = await reader.term_frequencies(tokenize(query))
    limit = max(1, int(total * 0.01))
    return any(0 < df <= limit for df in frequencies.values())


def apply_recency(ranked: list[Ranked], bias: float) -> list[Ranked]:
    """Blend in the recency of each chunk's source over the relevant pool."""
    if bias <= 0 or not ranked:
        return ranked
    best = ranked[0].score
    pool = [r for r in ranked[:POOL] if r.score >= 0.5 * best] if best > 0 else ranked[:POOL]
    rest = ranked[len(pool) :]
    times = [source_time(r.chunk.metadata) for r in pool]
    known = [t for t in times if t is not None]
    if not known:
        return ranked
    low, high = min(known), max(known)
    span = high - low
    rescored = []
    for item, when in zip(pool, times, strict=True):
        recency = 0.0 if when is None else ((when - low) / span if span > 0 else 1.0)
        relevance = item.score / best if best > 0 else 0.0
        rescored.append(Ranked(item.chunk, (1 - bias) * relevance + bias * recency))
    rescored.sort(key=lambda r: -r.score)
    return rescored + rest


async def expand_query(
    reader: TenantReader, query: str, vector: np.ndarray
) -> tuple[str, set[str]]:
    """Offline expansion from the graph: the aliases of entities the query names
    or means, and the names of their neighbours. Returns the expansion text and
    the chunk ids that mention those entities (for the graph rerank)."""
    names = [w for w in _WORD.findall(query) if len(w) > 2]
    found = await link_entities(reader, query)
    nearest = [e for e in await reader.nearest_entities(vector, 3) if e.score >= 0.5]
    entities = {e.id: e for e in [*found, *nearest]}
    if not entities:
        return "", set()
    terms: list[str] = []
    for entity in entities.values():
        terms += [entity.name, *entity.aliases]
    for edge in await reader.neighbourhood(list(entities), depth=1, limit=12):
        terms += [edge.source.name, edge.target.name]
    mentioned = {ref.chunk_id for e in entities.values() for ref in e.sources}
    known = {w.lower() for w in names}
    extra = [t for t in dict.fromkeys(terms) if t.lower() not in known]
    return " ".join(extra[:20]), mentioned


async def rank(
    reader: TenantReader,
    *,
    query: str,
    vector: np.ndarray,
    k: int,
    alpha: float,
    where: ChunkFilter,
    recency_bias: float,
    thinking: bool,
    embed: Callable[[str], Awaitable[np.ndarray]],
) -> list[Ranked]:
    """The ranked chunks of one search (at most ``k``)."""
    depth = max(k, POOL) if (recency_bias > 0 or thinking) else k
    hits = await reader.hybrid_chunks(vector, query, depth, alpha=alpha, where=where)
    ranked = [Ranked(h.chunk, h.score) for h in hits]
    if thinking:
        ranked = await _think(reader, ranked, query, vector, depth, alpha, where, embed)
    ranked = apply_recency(ranked, recency_bias)
    return ranked[:k]


async def _think(
    reader: TenantReader,
    ranked: list[Ranked],
    query: str,
    vector: np.ndarray,
    depth: int,
    alpha: float,
    where: ChunkFilter,
    embed: Callable[[str], Awaitable[np.ndarray]],
) -> list[Ranked]:
    expansion, mentioned = await expand_query(reader, query, vector)
    scores = {r.chunk.chunk_id: r.score for r in ranked}
    chunks = {r.chunk.chunk_id: r.chunk for r in ranked}
    if expansion:
        wider = f"{query} {expansion}"
        extra = await reader.hybrid_chunks(
            await embed(wider), wider, depth, alpha=alpha, where=where
        )
        for hit in extra:
            chunk_id = hit.chunk.chunk_id
            chunks.setdefault(chunk_id, hit.chunk)
            scores[chunk_id] = scores.get(chunk_id, 0.0) + EXPANSION_WEIGHT * hit.score
    related = await reader.chunk_relations(list(scores)[:depth])
    for chunk_id in scores:
        if chunk_id in mentioned:
            scores[chunk_id] += GRAPH_BOOST
        if related.get(chunk_id):
            scores[chunk_id] += GRAPH_BOOST / 2
    order = sorted(scores, key=lambda c: -scores[c])
    return [Ranked(chunks[c].with_score(scores[c]), scores[c]) for c in order]
