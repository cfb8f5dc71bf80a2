"""The graph search every graph-completion variant runs, once per query or round.

1. Passage base: HYBRID's passage lane (``retrievers.passages``: dense and BM25
   fused by normalised score, neighbours, titles), ``wide_search_top_k`` deep,
   so a question answered by one passage is ranked as HYBRID ranks it.
2. Graph signals on chunks, each a bonus on the passage score (best = 1):
   - entity links: the query is matched against the names of the entities the
     candidate passages mention (word n-grams of the normalised query); chunks
     that mention a linked entity (the mention edges of the query's entities)
     gain ``entity_weight``. Multi-hop questions about one person or thing
     need several of its passages, most of which do not share the question's
     words.
   - relations: the ``relation_lane_k`` relation texts nearest the query lend
     up to ``triplet_weight`` to the chunk stating each of them (and bring it in).
   - speakers: a conversation turn said by a person the query names scores
     ``1 + speaker_boost`` times more; such a person gets no mention bonus (it
     lifted the turns addressing them as much as their own).
   - questions: a chunk scores ``1 - question_weight x`` the share of its words in
     sentences that ask (``graph_scoring.asking_share``): a turn that asks repeats
     the question's words but answers nothing; what it loses goes to its reply,
     the next turn, said by someone else (``retrievers.graph_turns``).
3. Triplets: the relations near the query, those stated in the best chunks and
   those around the linked and nearest entities (``neighborhood_depth`` hops),
   each with its own distance (two entities + its relation text, a miss costing
   ``triplet_distance_penalty``) blended with a personalised PageRank over the
   projected entity graph (seeded by linked and nearest entities). Deduplicated by
   (source, predicate, target); the ``triplets_k`` best are kept.
4. One list whose order does not depend on ``top_k`` (``retrievers.layout``): the
   best ``passages_ahead`` chunks, the triplets they state, then each further
   chunk followed by the triplets it states; the result is that list cut at
   ``top_k``. Every depth above (``wide_search_top_k``, ``projection_k``) is the
   config's, so the first 10 hits are the same for any ``top_k`` of at least 10,
   and provenance stays chunk-ranked.

Why each signal is there, and the variants measured and not kept: the Decisions page
of the docs (``docs/decisions.md``).
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, EntityRef, TripletHit
from recall_engine.core.names import normalize_name
from recall_engine.read.api import GraphEdge, ReadAPI
from recall_engine.read.linking import name_grams as name_grams  # re-exported
from recall_engine.read.linking import names_in
from retrievers.graph_scoring import (
    normalised,
    personalized_pagerank,
    triplet_distance,
)
from retrievers.graph_speakers import speaker_boost, speaking
from retrievers.graph_turns import demote_questions, pass_to_replies
from retrievers.graph_walk import walk_lane
from retrievers.layout import PASSAGES_AHEAD
from retrievers.passages import PassageConfig, passages


class GraphSearchConfig(PassageConfig):
    """Options shared by the graph-completion family (recall() fills the first four);
    the passage lane's options are inherited from ``PassageConfig``."""

    wide_search_top_k: int = Field(default=100, ge=1, le=10_000)
    triplet_distance_penalty: float = Field(default=6.5, ge=0)
    node_name: tuple[str, ...] | None = Field(
        default=None, description="Restrict to the node sets (entity names) named here."
    )
    node_name_filter_operator: Literal["OR", "AND"] = "OR"
    neighborhood_depth: int = Field(default=1, ge=1, le=3)
    entity_weight: float = Field(
        default=0.05,
        ge=0,
        description="Flat bonus of chunks mentioning an entity the query names, other than "
        "a person who speaks in the candidates (speaker_boost links those); a tie-breaker "
        "(why so small: docs/decisions.md).",
    )
    question_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="A chunk's score times (1 - this x the share of its words in sentences "
        "that ask): a turn that asks repeats the question's words but does not answer it.",
    )
    replies_answer: bool = Field(
        default=True,
        description="What a turn loses for asking goes to its reply (the next turn, said by "
        "someone else), among the neighbour_seeds turns that lose most "
        "(retrievers.graph_turns).",
    )
    speaker_boost: float = Field(
        default=0.3,
        ge=0,
        description="Chunks said by a person the query names score (1 + this) times more: "
        "what a person did is told in their own turns, not in the turns addressing them.",
    )
    triplet_weight: float = Field(
        default=0.2, ge=0, description="Bonus of chunks stating a relation near the query."
    )
    relation_lane_k: int = Field(
        default=10,
        ge=0,
        description="Relations that lend a bonus: as many as the passages listed ahead "
        "(20 lent to more chunks stating loosely related facts on large graphs).",
    )
    damping: float = Field(default=0.5, gt=0, lt=1, description="PageRank continue probability.")
    walk_weight: float = Field(
        default=0.5, ge=0, description="Weight of the passage-entity walk's passage scores."
    )
    entity_seed_weight: float = Field(
        default=1.0, ge=0, description="Walk restart mass of a linked entity, times 1/degree."
    )
    expand_seeds: int = Field(default=10, ge=0, description="Candidates whose entities expand.")
    expand_degree: int = Field(
        default=8, ge=0, description="Most passages of an entity that expands."
    )
    expand_limit: int = Field(default=50, ge=0, description="Most passages the walk brings in.")
    include_passages: bool = Field(default=True, description="Interleave passages with triplets.")
    projection_k: int = Field(
        default=25,
        ge=1,
        le=1000,
        description="Nearest entities and relations that seed the PageRank, and best chunks "
        "whose relations are projected and may be listed (not top_k: see retrievers.layout).",
    )
    triplets_k: int = Field(
        default=6, ge=0, description="Triplets listed beside the passages (whatever top_k is)."
    )
    passages_ahead: int = Field(
        default=PASSAGES_AHEAD, ge=0, description="Best passages listed before any triplet."
    )


@dataclass
class GraphResult:
    """One graph search: ranked hits (chunks and triplets interleaved) and their parts."""

    hits: list[AnyHit] = field(default_factory=list)
    triplets: list[TripletHit] = field(default_factory=list)
    passages: list[ChunkHit] = field(default_factory=list)
    entities: dict[str, EntityRef] = field(default_factory=dict)
    distances: dict[str, float] = field(default_factory=dict)
    """Relation id -> its own triplet distance (per edge)."""
    details: dict[str, Any] = field(default_factory=dict)


def _specificity(degree: int) -> float:
    return 1.0 / math.log(2 + degree)


NODE_SET_KEY = "node_set"  # where remember(..., node_set=[...]) puts a chunk's node sets


class _NodeFilter:
    """``node_name``: a chunk belongs to a name when it is in the node set of that
    name (``remember(..., node_set=[...])``) or mentions an entity of that name;
    OR keeps chunks belonging to any name, AND to every name."""

    def __init__(self, names: tuple[str, ...], match_all: bool) -> None:
        self.names, self.match_all = names, match_all
        self.entities: set[str] = set()
        self._mentioning: list[set[str]] = []

    @classmethod
    async def build(cls, read: ReadAPI, options: GraphSearchConfig) -> _NodeFilter | None:
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
        sets = chunk.metadata.get(NODE_SET_KEY) or ()
        belongs = [
            name in sets or chunk.chunk_id in mentioning
            for name, mentioning in zip(self.names, self._mentioning, strict=True)
        ]
        return all(belongs) if self.match_all else any(belongs)


async def graph_search(
    query: str,
    vector: np.ndarray,
    read: ReadAPI,
    options: GraphSearchConfig,
    *,
    top_k: int,
    timings: dict[str, float] | None = None,
) -> GraphResult:
    """Run the graph search for one query (see the module docstring)."""
    clock = time.perf_counter()
    spent: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        spent[name] = round(spent.get(name, 0.0) + (now - clock) * 1000, 3)
        clock = now

    wide = options.wide_search_top_k
    penalty = options.triplet_distance_penalty
    pool, edge_hits, entity_hits = await asyncio.gather(
        passages(read, vector, query, wide, options, depth=max(options.depth, wide)),
        read.nearest_edges(vector, wide),
        read.nearest_entity_refs(vector, wide),
    )
    lap("graph.passages")

    node_filter = await _NodeFilter.build(read, options)
    chunk_of: dict[str, ChunkHit] = {h.chunk_id: h for h in pool}
    top = max((h.score for h in pool), default=0.0)
    score = {h.chunk_id: (h.score / top if top > 0 else 0.0) for h in pool}

    # relations near the query lend their chunk a bonus (and bring it in)
    lane = edge_hits[: options.relation_lane_k]
    edge_bonus: dict[str, float] = {}
    if lane and options.triplet_weight > 0:
        high, low = lane[0][1], lane[-1][1]
        for edge, sim in lane:
            part = (sim - low) / (high - low) if high > low else 1.0
            edge_bonus[edge.chunk_id] = max(edge_bonus.get(edge.chunk_id, 0.0), part)
        for hit in await read.chunks_by_id([c for c in edge_bonus if c not in chunk_of]):
            chunk_of[hit.chunk_id] = hit
    if node_filter is not None:
        chunk_of = {c: h for c, h in chunk_of.items() if node_filter.keeps(h)}

    # entity links: names of the entities the candidates mention, found in the query
    mentioned = await read.mentioned_in(list(chunk_of))
    refs = await read.entity_refs(sorted({e for es in mentioned.values() for e in es}))
    linked = names_in(query, {i: ref.name for i, ref in refs.items()})
    if node_filter is not None:
        linked |= node_filter.entities
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
    lap("graph.links")

    # projection: relations near the query, in the best chunks, around the seeds
    entity_distance = {ref.id: 1.0 - sim for ref, sim in entity_hits}
    edge_distance = {edge.id: 1.0 - sim for edge, sim in edge_hits}
    near = options.projection_k
    seed_raw: dict[str, float] = dict.fromkeys(linked, 1.0)
    for ref, sim in entity_hits[:near]:
        seed_raw[ref.id] = max(seed_raw.get(ref.id, 0.0), max(sim, 0.0))
    for edge, sim in edge_hits[:near]:
        for end in (edge.source_id, edge.target_id):
            seed_raw[end] = max(seed_raw.get(end, 0.0), max(sim, 0.0))
    edges: dict[str, GraphEdge] = {e.id: e for e, _ in edge_hits}
    for edge in await read.edges_in_chunks(ranked[:near]):
        edges.setdefault(edge.id, edge)
    frontier, seen = set(seed_raw), set(seed_raw)
    for _ in range(options.neighborhood_depth):
        found = await read.edges_of(sorted(frontier))
        frontier = set()
        for edge in found:
            edges.setdefault(edge.id, edge)
            frontier |= {edge.source_id, edge.target_id} - seen
        seen |= frontier
        if not frontier:
            break
    lap("graph.projection")

    # structure: personalised PageRank over the projected entity graph
    degree = await read.mentions(sorted(seed_raw))
    seeds = {e: w * _specificity(len(degree.get(e, ()))) for e, w in seed_raw.items() if w > 0}
    rank = normalised(
        personalized_pagerank(
            ((e.source_id, e.target_id, 1.0) for e in edges.values()),
            seeds,
            damping=options.damping,
        )
    )
    lap("graph.pagerank")

    # triplets stated by the best chunks, best first, one per (source, predicate, target)
    position = {c: i for i, c in enumerate(ranked[:near])}
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
    triplets = await read.triplets_by_id(chosen)
    lap("graph.triplets")
    ordered = _layout(ranked, chunk_of, chunk_score, triplets, options)
    hits: list[AnyHit] = []
    last = math.inf
    for item, value in ordered[:top_k]:
        last = min(last, round(value, 6))
        hits.append(item.with_score(last))
    kept_triplets = [h for h in hits if isinstance(h, TripletHit)]
    entities: dict[str, EntityRef] = {}
    for t in kept_triplets:
        entities.setdefault(t.source.id, t.source)
        entities.setdefault(t.target.id, t.target)
    for ref, _ in entity_hits[:5]:
        entities.setdefault(ref.id, ref)
    if timings is not None:
        for name, ms in spent.items():
            timings[name] = round(timings.get(name, 0.0) + ms, 3)
    return GraphResult(
        hits=hits,
        triplets=kept_triplets,
        passages=[h for h in hits if isinstance(h, ChunkHit)],
        entities=entities,
        distances={t.id: round(distances[t.id], 6) for t in kept_triplets},
        details={
            "lanes": {
                "passages": len(pool),
                "entities": len(entity_hits),
                "relations": len(edge_hits),
            },
            "linked_entities": sorted(refs[e].name for e in linked if e in refs),
            "seeds": len(seeds),
            "projected_edges": len(edges),
            **walk_details,
            "node_filter": None
            if node_filter is None
            else {"names": list(node_filter.names), "all": node_filter.match_all},
            "ms": round(sum(spent.values()), 3),
        },
    )


def _layout(
    ranked: list[str],
    chunk_of: dict[str, ChunkHit],
    chunk_score: dict[str, float],
    triplets: list[TripletHit],
    options: GraphSearchConfig,
) -> list[tuple[AnyHit, float]]:
    """One list whose order does not depend on top_k (``retrievers.layout``): the
    best ``passages_ahead`` chunks, the triplets they state, then each further chunk
    followed by the triplets it states; each triplet carries its chunk's score.
    Without passages: the triplets in the order of the chunks stating them."""
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


def render_context(result: GraphResult) -> str:
    """Nodes, Connections (``A --[predicate]--> B (context)``) and Passages blocks."""
    used = {x for t in result.triplets for x in (t.source.id, t.target.id)}
    nodes = [f"- {e.name} ({e.type})" for i, e in result.entities.items() if i in used]
    blocks = []
    if nodes:
        blocks.append("Nodes:\n" + "\n".join(nodes))
    if result.triplets:
        blocks.append("Connections:\n" + "\n".join(f"- {t.text}" for t in result.triplets))
    if result.passages:
        blocks.append("Passages:\n" + "\n".join(f"- {p.text}" for p in result.passages))
    return "\n\n".join(blocks)
