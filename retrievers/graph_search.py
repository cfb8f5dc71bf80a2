"""The graph search every graph-completion variant runs, once per query or round.

1. Wide lanes from one query vector: dense and BM25 chunks, entity names and
   relation texts (``wide_search_top_k`` each).
2. Seeds: the entities the entity lane found, the ends of the relations the
   relation lane found, and the entities mentioned by the best passages, each
   weighted by its similarity and divided by log(2 + number of chunks that
   mention it), so a name mentioned everywhere (a chat's speakers) seeds little.
3. Projection: the relations within ``neighborhood_depth`` hops of the seeds
   and those stated in the passages, plus the mention edges (chunk - entity)
   of the entities involved.
4. Personalised PageRank over that entity/chunk graph from the seeds and the
   passages: the structural signal.
5. Scores. A chunk: fused passage score blended with its PageRank mass. A
   triplet: its own distance (two entities + its relation text, a miss costing
   ``triplet_distance_penalty``), turned into a relevance in [0, 1], blended
   with its ends' PageRank mass and its chunk's score. Triplets are deduplicated
   by (source, predicate, target); chunks and triplets are interleaved by score.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, EntityRef, TripletHit
from recall_engine.read.api import GraphEdge, ReadAPI
from retrievers.base import RetrieverConfig
from retrievers.graph_scoring import (
    minmax_fusion,
    normalised,
    personalized_pagerank,
    triplet_distance,
)


class GraphSearchConfig(RetrieverConfig):
    """Options shared by the graph-completion family (recall() fills the first four)."""

    wide_search_top_k: int = Field(default=100, ge=1, le=10_000)
    triplet_distance_penalty: float = Field(default=6.5, ge=0)
    node_name: tuple[str, ...] | None = Field(
        default=None, description="Restrict to the node sets (entity names) named here."
    )
    node_name_filter_operator: Literal["OR", "AND"] = "OR"
    neighborhood_depth: int = Field(default=1, ge=1, le=3)
    lexical_weight: float = Field(default=0.5, ge=0, le=1, description="BM25 share of passages.")
    graph_weight: float = Field(
        default=0.3, ge=0, le=1, description="PageRank share of a chunk's score."
    )
    damping: float = Field(default=0.5, gt=0, lt=1, description="PageRank continue probability.")
    triplet_weight: float = Field(
        default=0.2, ge=0, le=1, description="Share of a chunk's score from its best triplet."
    )
    seed_passages: int = Field(default=10, ge=0, description="Passages whose entities seed.")
    include_passages: bool = Field(default=True, description="Interleave passages with triplets.")


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
    dense = await read.dense_chunks(vector, wide)
    lexical = await read.lexical_chunks(query, wide) if options.lexical_weight > 0 else []
    lap("graph.passages")
    entity_hits = await read.nearest_entity_refs(vector, wide)
    edge_hits = await read.nearest_edges(vector, wide)
    lap("graph.vector_lanes")

    node_filter = await _NodeFilter.build(read, options)
    named = node_filter.entities if node_filter is not None else set()
    chunk_of: dict[str, ChunkHit] = {h.chunk_id: h for h in lexical}
    chunk_of.update({h.chunk_id: h for h in dense})
    passage = minmax_fusion(
        [
            ({h.chunk_id: h.score for h in dense}, 1.0 - options.lexical_weight),
            ({h.chunk_id: h.score for h in lexical}, options.lexical_weight),
        ]
    )
    if node_filter is not None:
        passage = {c: s for c, s in passage.items() if node_filter.keeps(chunk_of[c])}
    entity_distance = {ref.id: 1.0 - sim for ref, sim in entity_hits}
    refs = {ref.id: ref for ref, _ in entity_hits}
    edge_distance = {edge.id: 1.0 - sim for edge, sim in edge_hits}

    # seeds and projection
    top_passages = sorted(passage, key=lambda c: -passage[c])[: options.seed_passages]
    mentioned = await read.mentioned_in(top_passages)
    seed_raw: dict[str, float] = {}
    for ref, sim in entity_hits:
        seed_raw[ref.id] = max(seed_raw.get(ref.id, 0.0), max(sim, 0.0))
    for edge, sim in edge_hits:
        for end in (edge.source_id, edge.target_id):
            seed_raw[end] = max(seed_raw.get(end, 0.0), max(sim, 0.0))
    for chunk_id in top_passages:
        for entity_id in mentioned.get(chunk_id, ()):
            seed_raw[entity_id] = max(seed_raw.get(entity_id, 0.0), passage[chunk_id])
    for entity_id in named:
        seed_raw[entity_id] = max(seed_raw.get(entity_id, 0.0), 1.0)

    edges: dict[str, GraphEdge] = {e.id: e for e, _ in edge_hits}
    frontier = set(seed_raw)
    seen_entities = set(frontier)
    for _ in range(options.neighborhood_depth):
        found = await read.edges_of(sorted(frontier))
        frontier = set()
        for edge in found:
            edges.setdefault(edge.id, edge)
            for end in (edge.source_id, edge.target_id):
                if end not in seen_entities:
                    seen_entities.add(end)
                    frontier.add(end)
        if not frontier:
            break
    for edge in await read.edges_in_chunks(top_passages):
        edges.setdefault(edge.id, edge)
    if node_filter is not None:
        stated = {e.chunk_id for e in edges.values()} - set(chunk_of)
        for hit in await read.chunks_by_id(sorted(stated)):
            chunk_of[hit.chunk_id] = hit
        edges = {
            i: e
            for i, e in edges.items()
            if e.chunk_id in chunk_of and node_filter.keeps(chunk_of[e.chunk_id])
        }
    involved = set(seed_raw) | {x for e in edges.values() for x in (e.source_id, e.target_id)}
    mentions = await read.mentions(sorted(involved))
    lap("graph.projection")

    # structure: personalised PageRank over entities and chunks
    seeds = {
        ("e", e): w * _specificity(len(mentions.get(e, ()))) for e, w in seed_raw.items() if w > 0
    }
    for chunk_id in top_passages:
        seeds[("c", chunk_id)] = seeds.get(("c", chunk_id), 0.0) + passage[chunk_id]
    graph_edges: list[tuple[tuple[str, str], tuple[str, str], float]] = [
        (("e", e.source_id), ("e", e.target_id), 1.0) for e in edges.values()
    ]
    graph_edges += [(("c", e.chunk_id), ("e", e.source_id), 1.0) for e in edges.values()]
    for entity_id, chunks in mentions.items():
        graph_edges += [(("c", c), ("e", entity_id), 1.0) for c in chunks]
    rank = personalized_pagerank(graph_edges, seeds, damping=options.damping)
    chunk_rank = normalised({k[1]: v for k, v in rank.items() if k[0] == "c"})
    entity_rank = normalised({k[1]: v for k, v in rank.items() if k[0] == "e"})
    lap("graph.pagerank")

    # triplet relevance, per edge: own distance and the structure around its ends
    distances: dict[str, float] = {}
    relevance: dict[str, float] = {}
    worst = 3 * penalty if penalty > 0 else 3.0
    for edge in edges.values():
        distance = triplet_distance(
            entity_distance.get(edge.source_id),
            entity_distance.get(edge.target_id),
            edge_distance.get(edge.id),
            penalty=penalty,
        )
        distances[edge.id] = distance
        ends = (entity_rank.get(edge.source_id, 0.0) + entity_rank.get(edge.target_id, 0.0)) / 2
        relevance[edge.id] = 0.7 * max(0.0, 1.0 - distance / worst) + 0.3 * ends
    best_in_chunk: dict[str, float] = {}
    for edge in edges.values():
        best_in_chunk[edge.chunk_id] = max(
            best_in_chunk.get(edge.chunk_id, 0.0), relevance[edge.id]
        )

    # chunk scores: passages, PageRank mass, the best triplet each chunk states
    candidates = set(passage) | set(chunk_rank) | set(best_in_chunk)
    if node_filter is not None:
        unknown = sorted(candidates - set(chunk_of))
        for hit in await read.chunks_by_id(unknown):
            chunk_of[hit.chunk_id] = hit
        candidates = {c for c in candidates if c in chunk_of and node_filter.keeps(chunk_of[c])}
    w, u = options.graph_weight, options.triplet_weight
    chunk_score = {
        c: (1 - w) * passage.get(c, 0.0)
        + w * chunk_rank.get(c, 0.0)
        + u * best_in_chunk.get(c, 0.0)
        for c in candidates
    }
    order = sorted(candidates, key=lambda c: (-chunk_score[c], c))
    missing = [c for c in order[: top_k * 2] if c not in chunk_of]
    for hit in await read.chunks_by_id(missing):
        chunk_of[hit.chunk_id] = hit
    ranked_chunks = [c for c in order if c in chunk_of]

    # triplets: best first by relevance, one per (source, predicate, target); each
    # placed just after the chunk that states it, so provenance stays chunk-ranked
    best_by_key: dict[tuple[str, str, str], str] = {}
    for edge_id in sorted(relevance, key=lambda i: (-relevance[i], i)):
        edge = edges[edge_id]
        best_by_key.setdefault((edge.source_id, edge.predicate, edge.target_id), edge_id)
    keep = list(best_by_key.values())[:top_k]
    triplets = [
        t.with_score(round(chunk_score.get(t.chunk_id or "", 0.0) * 0.999, 6))
        for t in await read.triplets_by_id(keep)
    ]
    lap("graph.triplets")

    passages = [chunk_of[c].with_score(round(chunk_score[c], 6)) for c in ranked_chunks[:top_k]]
    merged: list[AnyHit] = [*triplets, *(passages if options.include_passages else [])]
    hits = sorted(merged, key=lambda h: -h.score)[:top_k]
    entity_ids = [x for t in triplets for x in (t.source.id, t.target.id)]
    entities = {t.source.id: t.source for t in triplets} | {t.target.id: t.target for t in triplets}
    entities = {e: entities[e] for e in dict.fromkeys(entity_ids)}
    for ref_id in list(refs)[:5]:
        entities.setdefault(ref_id, refs[ref_id])
    spent_total = round(sum(spent.values()), 3)
    if timings is not None:
        for name, ms in spent.items():
            timings[name] = round(timings.get(name, 0.0) + ms, 3)
    return GraphResult(
        hits=hits,
        triplets=[h for h in hits if isinstance(h, TripletHit)],
        passages=[h for h in hits if isinstance(h, ChunkHit)],
        entities=entities,
        distances={t.id: round(distances[t.id], 6) for t in triplets},
        details={
            "lanes": {
                "dense": len(dense),
                "lexical": len(lexical),
                "entities": len(entity_hits),
                "relations": len(edge_hits),
            },
            "seeds": len(seeds),
            "projected_edges": len(edges),
            "node_filter": None
            if node_filter is None
            else {"names": list(node_filter.names), "all": node_filter.match_all},
            "ms": spent_total,
        },
    )


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
