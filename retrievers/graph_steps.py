"""The steps of one graph search (``retrievers.graph_search``), each a function of
what the steps before it found: node filter, chunk scores, projection, PageRank,
triplets, layout."""

from __future__ import annotations

import math
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from recall_engine.core.hits import AnyHit, ChunkHit, EntityRef, TripletHit
from recall_engine.core.names import normalize_name
from recall_engine.read.api import GraphEdge, ReadAPI
from retrievers.graph_scoring import normalised, personalized_pagerank, triplet_distance
from retrievers.graph_speakers import speaker_boost, speaking
from retrievers.graph_turns import demote_questions, pass_to_replies
from retrievers.graph_walk import walk_lane

if TYPE_CHECKING:
    from retrievers.graph_config import GraphSearchConfig

NEIGHBORHOOD_DEPTH = 1
"""Hops of relations followed from the seed entities when projecting triplets."""
NODE_SET_KEY = "node_set"  # where remember(..., node_set=[...]) puts a chunk's node sets


class Laps:
    """Milliseconds spent per named step, summed over laps of the same name."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._clock = time.perf_counter()

    def lap(self, name: str) -> None:
        """Charge the time since the last lap to ``name``.

        Args:
            name: the step that just ended.
        """
        now = time.perf_counter()
        self.spent[name] = round(self.spent.get(name, 0.0) + (now - self._clock) * 1000, 3)
        self._clock = now

    def add_to(self, timings: dict[str, float] | None) -> None:
        """Add the laps to a caller's ``timings`` (nothing when it is None).

        Args:
            timings: step name -> milliseconds, updated in place.
        """
        if timings is not None:
            for name, ms in self.spent.items():
                timings[name] = round(timings.get(name, 0.0) + ms, 3)


class NodeFilter:
    """``node_name``: a chunk belongs to a name when it is in the node set of that
    name (``remember(..., node_set=[...])``) or mentions an entity of that name;
    OR keeps chunks belonging to any name, AND to every name."""

    def __init__(self, names: tuple[str, ...], match_all: bool) -> None:
        self.names, self.match_all = names, match_all
        self.entities: set[str] = set()
        self._mentioning: list[set[str]] = []

    @classmethod
    async def build(cls, read: ReadAPI, options: GraphSearchConfig) -> NodeFilter | None:
        """The filter ``options.node_name`` asks for; None when it names nothing.

        Args:
            read: the tenant's read API.
            options: the search's options.

        Returns:
            The filter, with the entities of the names and the chunks mentioning them.
        """
        if not options.node_name:
            return None
        self = cls(options.node_name, options.node_name_filter_operator == "AND")
        for name in self.names:
            ids = {e.id for e in await read.entities_by_name([name])}
            self.entities |= ids
            mentions = await read.mentions(sorted(ids))
            self._mentioning.append({c for chunks in mentions.values() for c in chunks})
        return self

    def keeps(self, chunk: ChunkHit) -> bool:
        """Whether ``chunk`` belongs to the names (any, or all with AND).

        Args:
            chunk: a candidate chunk.

        Returns:
            True when the filter keeps it.
        """
        sets = cast("Collection[str]", chunk.metadata.get(NODE_SET_KEY) or ())
        belongs = [
            name in sets or chunk.chunk_id in mentioning
            for name, mentioning in zip(self.names, self._mentioning, strict=True)
        ]
        return all(belongs) if self.match_all else any(belongs)


async def relation_bonus(
    read: ReadAPI,
    edge_hits: list[tuple[GraphEdge, float]],
    chunk_of: dict[str, ChunkHit],
    options: GraphSearchConfig,
) -> dict[str, float]:
    """Relations near the query lend their chunk a bonus (and bring it in).

    Args:
        read: the tenant's read API.
        edge_hits: relations nearest the query, best first, with their similarity.
        chunk_of: the candidate chunks by id; chunks the lane brings in are added.
        options: the search's options (``relation_lane_k``, ``triplet_weight``).

    Returns:
        Chunk id -> its bonus in [0, 1].
    """
    lane = edge_hits[: options.relation_lane_k]
    edge_bonus: dict[str, float] = {}
    if lane and options.triplet_weight > 0:
        high, low = lane[0][1], lane[-1][1]
        for edge, sim in lane:
            part = (sim - low) / (high - low) if high > low else 1.0
            edge_bonus[edge.chunk_id] = max(edge_bonus.get(edge.chunk_id, 0.0), part)
        for hit in await read.chunks_by_id([c for c in edge_bonus if c not in chunk_of]):
            chunk_of[hit.chunk_id] = hit
    return edge_bonus


@dataclass
class ChunkRanking:
    """The candidate chunks scored by the graph signals, and the entities linked."""

    chunk_of: dict[str, ChunkHit]
    chunk_score: dict[str, float]
    ranked: list[str]
    linked: set[str]
    refs: dict[str, EntityRef]
    walk_details: dict[str, object] = field(default_factory=dict)


async def rank_chunks(
    read: ReadAPI,
    query: str,
    score: dict[str, float],
    chunk_of: dict[str, ChunkHit],
    edge_bonus: dict[str, float],
    node_filter: NodeFilter | None,
    options: GraphSearchConfig,
) -> ChunkRanking:
    """Entity links, the walk, questions and speakers on top of the passage scores.

    Args:
        read: the tenant's read API.
        query: the question.
        score: chunk id -> its passage score, the best 1.
        chunk_of: the candidate chunks by id (filtered by the node filter).
        edge_bonus: chunk id -> the relation lane's bonus.
        node_filter: the ``node_name`` filter, if any.
        options: the search's options.

    Returns:
        The chunks ranked by their final score, and what linked them.
    """
    # entity links: names of the entities the candidates mention, found in the query
    mentioned = await read.mentioned_in(list(chunk_of))
    candidates = {e for es in mentioned.values() for e in es}
    linked = await read.named_in(query, list(candidates))
    if node_filter is not None:
        linked |= node_filter.entities
    # names are read only for the linked entities the candidates mention (speakers)
    refs = await read.entity_refs(sorted(linked & candidates))
    walked, walk_details = await walk_lane(read, score, mentioned, linked, options)
    fresh = [c for c in walked if c not in chunk_of and walked[c] > 0]
    for hit in await read.chunks_by_id(fresh):
        if node_filter is None or node_filter.keeps(hit):
            chunk_of[hit.chunk_id] = hit
    speakers = speaking(linked, refs, chunk_of)
    # a person who speaks is linked through the turns they say, anything else by mentions
    named = {e for e in linked if e not in refs or normalize_name(refs[e].name) not in speakers}
    chunk_score = {
        c: score.get(c, 0.0)
        + options.entity_weight * any(e in named for e in mentioned.get(c, ()))
        + options.walk_weight * walked.get(c, 0.0)
        + options.triplet_weight * edge_bonus.get(c, 0.0)
        for c in chunk_of
    }
    if options.question_weight > 0:
        chunk_score, lost = demote_questions(chunk_score, chunk_of, options.question_weight)
        if options.replies_answer:
            chunk_score = await pass_to_replies(
                read,
                chunk_score,
                lost,
                chunk_of,
                askers=options.neighbour_seeds,
                keeps=None if node_filter is None else node_filter.keeps,
            )
    if options.speaker_boost > 0 and speakers:
        chunk_score = speaker_boost(chunk_score, chunk_of, speakers, options.speaker_boost)
    ranked = sorted(chunk_of, key=lambda c: (-chunk_score[c], c))
    return ChunkRanking(chunk_of, chunk_score, ranked, linked, refs, walk_details)


async def project(
    read: ReadAPI,
    ranking: ChunkRanking,
    entity_hits: list[tuple[EntityRef, float]],
    edge_hits: list[tuple[GraphEdge, float]],
    options: GraphSearchConfig,
) -> tuple[dict[str, float], dict[str, GraphEdge]]:
    """Relations near the query, in the best chunks, and around the seeds.

    Args:
        read: the tenant's read API.
        ranking: the ranked chunks and the linked entities.
        entity_hits: entities nearest the query, with their similarity.
        edge_hits: relations nearest the query, with their similarity.
        options: the search's options (``projection_k``).

    Returns:
        The seed entities with their raw weight, and the projected relations by id.
    """
    near = options.projection_k
    seed_raw: dict[str, float] = dict.fromkeys(ranking.linked, 1.0)
    for ref, sim in entity_hits[:near]:
        seed_raw[ref.id] = max(seed_raw.get(ref.id, 0.0), max(sim, 0.0))
    for edge, sim in edge_hits[:near]:
        for end in (edge.source_id, edge.target_id):
            seed_raw[end] = max(seed_raw.get(end, 0.0), max(sim, 0.0))
    edges: dict[str, GraphEdge] = {e.id: e for e, _ in edge_hits}
    for edge in await read.edges_in_chunks(ranking.ranked[:near]):
        edges.setdefault(edge.id, edge)
    frontier, seen = set(seed_raw), set(seed_raw)
    for _ in range(NEIGHBORHOOD_DEPTH):
        found = await read.edges_of(sorted(frontier))
        frontier = set()
        for edge in found:
            edges.setdefault(edge.id, edge)
            frontier |= {edge.source_id, edge.target_id} - seen
        seen |= frontier
        if not frontier:
            break
    return seed_raw, edges


async def entity_rank(
    read: ReadAPI,
    seed_raw: dict[str, float],
    edges: dict[str, GraphEdge],
    options: GraphSearchConfig,
) -> tuple[dict[str, float], dict[str, float]]:
    """Personalised PageRank over the projected entity graph.

    Seeds are weighted by specificity: an entity mentioned by fewer chunks counts more.

    Args:
        read: the tenant's read API.
        seed_raw: seed entity id -> raw weight.
        edges: the projected relations by id.
        options: the search's options (``damping``).

    Returns:
        The weighted seeds, and entity id -> normalised rank.
    """
    degree = await read.mentions(sorted(seed_raw))
    seeds = {e: w * _specificity(len(degree.get(e, ()))) for e, w in seed_raw.items() if w > 0}
    rank = normalised(
        personalized_pagerank(
            ((e.source_id, e.target_id, 1.0) for e in edges.values()),
            seeds,
            damping=options.damping,
        )
    )
    return seeds, rank


def choose_triplets(
    edges: dict[str, GraphEdge],
    ranked: list[str],
    rank: dict[str, float],
    entity_hits: list[tuple[EntityRef, float]],
    edge_hits: list[tuple[GraphEdge, float]],
    options: GraphSearchConfig,
) -> tuple[list[str], dict[str, float]]:
    """Triplets stated by the best chunks, best first, one per (source, predicate, target).

    Args:
        edges: the projected relations by id.
        ranked: chunk ids, best first.
        rank: entity id -> normalised PageRank.
        entity_hits: entities nearest the query, with their similarity.
        edge_hits: relations nearest the query, with their similarity.
        options: the search's options.

    Returns:
        The chosen relation ids, best first, and relation id -> triplet distance.
    """
    penalty = options.triplet_distance_penalty
    entity_distance = {ref.id: 1.0 - sim for ref, sim in entity_hits}
    edge_distance = {edge.id: 1.0 - sim for edge, sim in edge_hits}
    position = {c: i for i, c in enumerate(ranked[: options.projection_k])}
    worst = 3 * penalty if penalty > 0 else 3.0
    distances: dict[str, float] = {}
    relevance: dict[str, float] = {}
    for edge in edges.values():
        if edge.chunk_id not in position:
            continue
        distance = triplet_distance(
            entity_distance.get(edge.source_id),
            entity_distance.get(edge.target_id),
            edge_distance.get(edge.id),
            penalty=penalty,
        )
        distances[edge.id] = distance
        ends = (rank.get(edge.source_id, 0.0) + rank.get(edge.target_id, 0.0)) / 2
        relevance[edge.id] = 0.7 * max(0.0, 1.0 - distance / worst) + 0.3 * ends
    best_by_key: dict[tuple[str, str, str], str] = {}
    for edge_id in sorted(relevance, key=lambda i: (-relevance[i], i)):
        edge = edges[edge_id]
        best_by_key.setdefault((edge.source_id, edge.predicate, edge.target_id), edge_id)
    chosen = list(best_by_key.values())
    if options.include_passages:
        chosen = chosen[: options.triplets_k]
    return chosen, distances


def layout(
    ranking: ChunkRanking,
    triplets: list[TripletHit],
    options: GraphSearchConfig,
) -> list[tuple[AnyHit, float]]:
    """One list whose order does not depend on top_k (``retrievers.layout``).

    The best ``passages_ahead`` chunks, the triplets they state, then each further
    chunk followed by the triplets it states; each triplet carries its chunk's score.
    Without passages: the triplets in the order of the chunks stating them.

    Args:
        ranking: the ranked chunks and their scores.
        triplets: the chosen triplets.
        options: the search's options (``include_passages``, ``passages_ahead``).

    Returns:
        (hit, score) pairs in order.
    """
    ranked, chunk_of, chunk_score = ranking.ranked, ranking.chunk_of, ranking.chunk_score
    stated: dict[str, list[TripletHit]] = {}
    for triplet in triplets:
        stated.setdefault(triplet.chunk_id or "", []).append(triplet)

    def told(chunk_ids: list[str]) -> list[tuple[AnyHit, float]]:
        return [(t, chunk_score[c]) for c in chunk_ids for t in stated.get(c, ())]

    if not options.include_passages:
        return told(ranked)
    ahead = ranked[: options.passages_ahead]
    ordered: list[tuple[AnyHit, float]] = [(chunk_of[c], chunk_score[c]) for c in ahead]
    ordered += told(ahead)
    for chunk_id in ranked[options.passages_ahead :]:
        ordered.append((chunk_of[chunk_id], chunk_score[chunk_id]))
        ordered += told([chunk_id])
    return ordered


def cut(ordered: list[tuple[AnyHit, float]], top_k: int) -> list[AnyHit]:
    """The first ``top_k`` hits, each scored no higher than the one before it.

    Args:
        ordered: (hit, score) pairs in order.
        top_k: how many to keep.

    Returns:
        The hits with their scores set.
    """
    hits: list[AnyHit] = []
    last = math.inf
    for item, value in ordered[:top_k]:
        last = min(last, round(value, 6))
        hits.append(item.with_score(last))
    return hits


def _specificity(degree: int) -> float:
    return 1.0 / math.log(2 + degree)
