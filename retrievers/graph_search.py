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
   those around the linked and nearest entities (``NEIGHBORHOOD_DEPTH`` hops),
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
from dataclasses import dataclass, field

import numpy as np

from recall_engine.core.hits import AnyHit, ChunkHit, EntityRef, TripletHit
from recall_engine.read.api import ReadAPI
from recall_engine.read.linking import name_grams as name_grams  # re-exported
from retrievers.base import RetrievalContext, RetrieverConfig
from retrievers.content_query import EmbedPart, Lane, passage_vector
from retrievers.graph_config import GraphSearchConfig as GraphSearchConfig  # re-exported
from retrievers.graph_steps import (
    Laps,
    NodeFilter,
    choose_triplets,
    cut,
    entity_rank,
    layout,
    project,
    rank_chunks,
    relation_bonus,
)
from retrievers.list_shape import list_shaped, spread_sessions
from retrievers.passages import passages


@dataclass
class GraphResult:
    """One graph search: ranked hits (chunks and triplets interleaved) and their parts."""

    hits: list[AnyHit] = field(default_factory=list)
    triplets: list[TripletHit] = field(default_factory=list)
    passages: list[ChunkHit] = field(default_factory=list)
    entities: dict[str, EntityRef] = field(default_factory=dict)
    distances: dict[str, float] = field(default_factory=dict)
    """Relation id -> its own triplet distance (per edge)."""
    details: dict[str, object] = field(default_factory=dict)


async def graph_search(
    query: str,
    vector: np.ndarray,
    read: ReadAPI,
    options: GraphSearchConfig,
    *,
    top_k: int,
    timings: dict[str, float] | None = None,
    embed_part: EmbedPart | None = None,
) -> GraphResult:
    """Run the graph search for one query (see the module docstring).

    Args:
        query: the question.
        vector: the question's embedding.
        read: the tenant's read API.
        options: the search's options.
        top_k: how many hits to return.
        timings: step name -> milliseconds, added to when given.
        embed_part: embeds a part of the question; with ``options.speaker_free_lane``,
            the passage lane also searches with the question without its speakers'
            names (``retrievers.content_query``). None: with the question's vector alone.

    Returns:
        The ranked hits and their parts (triplets, passages, entities, details).
    """
    laps = Laps()
    wide = options.wide_search_top_k
    lane = (
        Lane(vector, None)
        if embed_part is None
        else await passage_vector(query, vector, options, read, embed_part)
    )
    pool, edge_hits, entity_hits = await asyncio.gather(
        passages(read, lane.vector, query, wide, options, depth=max(options.depth, wide)),
        read.nearest_edges(vector, wide),
        read.nearest_entity_refs(vector, wide),
    )
    laps.lap("graph.passages")

    node_filter = await NodeFilter.build(read, options)
    chunk_of: dict[str, ChunkHit] = {h.chunk_id: h for h in pool}
    top = max((h.score for h in pool), default=0.0)
    score = {h.chunk_id: (h.score / top if top > 0 else 0.0) for h in pool}
    edge_bonus = await relation_bonus(read, edge_hits, chunk_of, options)
    if node_filter is not None:
        chunk_of = {c: h for c, h in chunk_of.items() if node_filter.keeps(h)}
    ranking = await rank_chunks(read, query, score, chunk_of, edge_bonus, node_filter, options)
    # A list's items are stated over many sessions, not the one on its topic.
    spread = spread_sessions(ranking) if list_shaped(query) else None
    laps.lap("graph.links")

    seed_raw, edges = await project(read, ranking, entity_hits, edge_hits, options)
    laps.lap("graph.projection")
    seeds, rank = await entity_rank(read, seed_raw, edges, options)
    laps.lap("graph.pagerank")
    chosen, distances = choose_triplets(
        edges, ranking.ranked, rank, entity_hits, edge_hits, options
    )
    triplets = await read.triplets_by_id(chosen)
    laps.lap("graph.triplets")

    hits = cut(layout(ranking, triplets, options), top_k)
    kept_triplets = [h for h in hits if isinstance(h, TripletHit)]
    entities: dict[str, EntityRef] = {}
    for t in kept_triplets:
        entities.setdefault(t.source.id, t.source)
        entities.setdefault(t.target.id, t.target)
    for ref, _ in entity_hits[:5]:
        entities.setdefault(ref.id, ref)
    laps.add_to(timings)
    refs = ranking.refs
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
            "linked_entities": sorted(refs[e].name for e in ranking.linked if e in refs),
            "speaker_free_rest": lane.rest,
            "list_spread": spread,
            "seeds": len(seeds),
            "projected_edges": len(edges),
            **ranking.walk_details,
            "node_filter": None
            if node_filter is None
            else {"names": list(node_filter.names), "all": node_filter.match_all},
            "ms": round(sum(laps.spent.values()), 3),
        },
    )


async def question_search(
    query: str, ctx: RetrievalContext[RetrieverConfig], options: GraphSearchConfig
) -> GraphResult:
    """``graph_search`` of a recall's own question in ``ctx``: its vector, scope and
    timings, ``ctx.top_k`` deep, the passage lane's rest embedded by ``ctx.part_vector``.

    Args:
        query: the question.
        ctx: the recall's retrieval context.
        options: the search's options.

    Returns:
        The graph search's result.
    """
    return await graph_search(
        query,
        ctx.query_vector,
        ctx.read,
        options,
        top_k=ctx.top_k,
        timings=ctx.timings,
        embed_part=ctx.part_vector,
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
