"""The passage lane shared by HYBRID_COMPLETION and TEMPORAL.

Dense and BM25 candidate lists are fused by a convex combination of their
min-max normalised scores (each list's best = 1, its last candidate = 0), which
keeps how far apart the candidates are where reciprocal rank keeps only their
order. Then each of the best candidates lends a share of its score to the
chunks next to it in the same data item (a conversation's neighbouring turns, a
document's neighbouring chunks), decaying with distance: the answer to a
question often sits one turn after the words that match it.

Two title signals follow (``recall_engine.read.titles``): chunks of a document
the query names by its title get a bonus, and the best three chunks lend a share
of their score to the documents they name by title (a second hop, as a reader
follows a link).

The dense list counts each chunk's best sentence (``storage.sentence_index``).
Each seed of the title hop is followed by one page it names, ranked right after it
(``_followed_link``: the one the query reaches, else its only link), as a reader of a
bridge passage follows the link to the second hop's page. What each step adds, and
what was tried and not kept: ``docs/decisions.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import Field

from recall_engine.core.hits import ChunkHit
from recall_engine.read.api import ChunkPlace, ReadAPI
from recall_engine.read.fusion import JoinMode, Scored, join, normalise
from retrievers.base import RetrieverConfig
from retrievers.layout import extend_tail

Placed = ChunkHit | ChunkPlace  # what neighbour spreading needs: id, data item, index
FOLLOWS = 0.999
"""A followed link scores this share of its seed's score: just below it."""


class PassageConfig(RetrieverConfig):
    """How the passage lane fuses its lists and spreads scores to neighbours."""

    depth: int = Field(default=50, ge=1, le=1000, description="Candidates per list.")
    dense_weight: float = Field(default=1.0, ge=0.0)
    lexical_weight: float = Field(default=1.0, ge=0.0)
    neighbour_share: float = Field(
        default=0.3, ge=0.0, le=1.0, description="Share of a seed's score its neighbours get."
    )
    neighbour_window: int = Field(default=2, ge=0, le=5, description="Chunks each side.")
    neighbour_seeds: int = Field(default=30, ge=0, description="Best candidates that lend.")
    title_weight: float = Field(
        default=0.5, ge=0.0, description="Bonus of chunks whose document the query names by title."
    )
    link_share: float = Field(
        default=0.4, ge=0.0, le=1.0, description="Share a seed gives documents it names by title."
    )
    link_seeds: int = Field(
        default=3, ge=0, description="Best candidates whose titles are followed."
    )
    follow_links: bool = Field(
        default=True,
        description="Rank the page a seed links to that bears on the query right after it.",
    )
    join_mode: JoinMode = Field(
        default="weighted",
        description="How the lists are fused: weighted (min-max scores, keeps gaps) or "
        "reciprocal_rank (ranks only, for lists whose scores are not comparable).",
    )


def normalised(hits: Sequence[ChunkHit]) -> dict[str, float]:
    """Scores mapped to [0, 1]: the list's best is 1, its worst 0 (one hit: 1)."""
    values = normalise(np.array([h.score for h in hits], dtype=np.float64))
    return {h.chunk_id: float(v) for h, v in zip(hits, values, strict=True)}


def fuse(
    lists: Sequence[Sequence[Scored]], weights: Sequence[float], mode: JoinMode = "weighted"
) -> dict[str, float]:
    """The lists joined by the one fusion component (``weighted``: the weighted
    sum of each list's normalised scores, per chunk id)."""
    return join(lists, weights, mode)


async def spread_to_neighbours(
    read: ReadAPI,
    scores: dict[str, float],
    hits: dict[str, ChunkHit],
    options: PassageConfig,
) -> dict[str, float]:
    """Each of the ``neighbour_seeds`` best chunks gives ``share * score / distance``
    to the chunks within ``neighbour_window`` of it; ``hits`` gains the new chunks."""
    seeds = neighbour_seeds(scores, options)
    if not seeds:
        return scores
    around = await read.chunks_by_id(seeds, neighbours=options.neighbour_window)
    for hit in around:
        hits.setdefault(hit.chunk_id, hit)
    return spread(scores, seeds, around, hits, options)


def neighbour_seeds(scores: dict[str, float], options: PassageConfig) -> list[str]:
    """The chunks that lend to their neighbours, best first (none when spreading is off)."""
    window, share = options.neighbour_window, options.neighbour_share
    if window <= 0 or share <= 0 or options.neighbour_seeds <= 0 or not scores:
        return []
    return sorted(scores, key=lambda c: -scores[c])[: options.neighbour_seeds]


def spread(
    scores: dict[str, float],
    seeds: Sequence[str],
    around: Sequence[Placed],
    known: Mapping[str, Placed],
    options: PassageConfig,
) -> dict[str, float]:
    """``scores`` with each seed's share given to the chunks of ``around`` (the seeds
    and their neighbours) within the window; ``known``: where each seed sits."""
    window, share = options.neighbour_window, options.neighbour_share
    at = {(h.data_id, h.chunk_index): h for h in around}
    out = dict(scores)
    for seed in seeds:
        origin = known[seed]
        for distance in range(1, window + 1):
            for index in (origin.chunk_index - distance, origin.chunk_index + distance):
                near = at.get((origin.data_id, index))
                if near is not None:
                    gain = share * scores[seed] / distance
                    out[near.chunk_id] = out.get(near.chunk_id, 0.0) + gain
    return out


async def follow_titles(
    read: ReadAPI,
    scores: dict[str, float],
    hits: dict[str, ChunkHit],
    options: PassageConfig,
) -> dict[str, float]:
    """The second hop: each of the ``link_seeds`` best chunks gives ``link_share`` of
    its score to the chunks of other documents whose title it names (a passage
    about a film that names its director leads to the director's page), and one
    of those is ranked right after the seed (``_followed_link``), as a reader
    follows the link that bears on the question."""
    if options.link_share <= 0 or options.link_seeds <= 0 or not scores:
        return scores
    seeds = sorted(scores, key=lambda c: -scores[c])[: options.link_seeds]
    if missing := [c for c in seeds if c not in hits]:  # ranked as places: no text yet
        hits.update((h.chunk_id, h) for h in await read.chunks_by_id(missing))
    out = dict(scores)
    follows: list[tuple[str, float]] = []
    for seed in seeds:
        origin = hits[seed]
        linked = []
        for hit in await read.titled_chunks(origin.text, options.depth):
            if hit.data_id != origin.data_id:
                hits.setdefault(hit.chunk_id, hit)
                linked.append(hit.chunk_id)
                out[hit.chunk_id] = out.get(hit.chunk_id, 0.0) + options.link_share * scores[seed]
        if options.follow_links and (followed := _followed_link(linked, scores, hits)):
            follows.append((followed, FOLLOWS * scores[seed]))
    for chunk_id, floor in follows:
        out[chunk_id] = max(out[chunk_id], floor)
    return out


def _followed_link(
    linked: Sequence[str], scores: Mapping[str, float], hits: Mapping[str, ChunkHit]
) -> str | None:
    """The linked chunk a seed is followed by: the one the query itself reaches best
    (its fused score before the hop, above 0; the first in ``linked``'s order on a
    tie), else the first chunk of the only document linked when the seed names one;
    None when it names several the query does not reach."""
    if not linked:
        return None
    best = max(linked, key=lambda c: scores.get(c, 0.0))  # the first of equals
    if scores.get(best, 0.0) > 0 or len({hits[c].data_id for c in linked}) == 1:
        return best
    return None


async def passage_lists(
    read: ReadAPI, vector: np.ndarray, query: str, depth: int
) -> tuple[list[ChunkHit], list[ChunkHit], list[ChunkHit]]:
    """The dense and BM25 candidate lists (``depth`` each), and the chunks of the
    documents the query names by title."""
    dense = await read.dense_chunks(vector, depth)
    lexical = await read.lexical_chunks(query, depth)
    titled = await read.titled_chunks(query, depth)
    return dense, lexical, titled


async def ranked_passages(
    read: ReadAPI,
    vector: np.ndarray,
    query: str,
    options: PassageConfig,
    *,
    depth: int,
    limit: int | None = None,
) -> list[ChunkHit]:
    """The candidates of lists ``depth`` deep (the first ``limit`` of them; None:
    all), best first: fused dense, BM25 and title scores, the documents the best
    ones name, and scores spread to neighbours.

    Candidates are ranked as places (``ChunkPlace``, no text); hits are built only
    for the title hop's seeds and the chunks returned."""
    dense = await read.dense_places(vector, depth)
    lexical = await read.lexical_places(query, depth)
    titled = await read.titled_chunks(query, depth)
    scores = fuse(
        [dense, lexical, titled],
        [options.dense_weight, options.lexical_weight, options.title_weight],
        options.join_mode,
    )
    hits = {h.chunk_id: h for h in titled}
    scores = await follow_titles(read, scores, hits, options)
    known: dict[str, Placed] = {p.chunk_id: p for p in (*dense, *lexical)}
    for hit in hits.values():
        known.setdefault(hit.chunk_id, hit)
    seeds = neighbour_seeds(scores, options)
    if seeds:
        around = await read.places_by_id(seeds, neighbours=options.neighbour_window)
        for place in around:
            known.setdefault(place.chunk_id, place)
        scores = spread(scores, seeds, around, known, options)
    best = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
    if missing := [c for c in best if c not in hits]:
        hits.update((h.chunk_id, h) for h in await read.chunks_by_id(missing))
    return [hits[c].with_score(scores[c]) for c in best]


async def passages(
    read: ReadAPI,
    vector: np.ndarray,
    query: str,
    k: int,
    options: PassageConfig,
    *,
    depth: int | None = None,
) -> list[ChunkHit]:
    """The ``k`` best chunks of ``ranked_passages`` at ``depth`` (default: the
    config's), whatever ``k`` is: when they are fewer than ``k``, deeper lists
    only add chunks after them (``layout.extend_tail``), so the order of the
    first ones never depends on ``k``."""
    if k <= 0:
        return []
    depth = options.depth if depth is None else depth
    found = await ranked_passages(read, vector, query, options, depth=depth, limit=k)
    if len(found) < k and k > depth:
        deeper = await ranked_passages(read, vector, query, options, depth=k, limit=k)
        found = extend_tail(found, deeper, key=lambda h: h.chunk_id)
    return found[:k]
