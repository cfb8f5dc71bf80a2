"""HYBRID_COMPLETION: passages, entities and facts from one query embedding.

The three lanes run in parallel; their hits are laid out in three sections, and
the pipeline answers from them.

Lanes (``asyncio.gather``):
- passages: dense and BM25 chunk lists fused (``retrievers.passages``);
- entities: the entities nearest the query, each with its strongest edges (the
  relations stated most often);
- facts: the relation texts nearest the query.

Hits are one list whose order does not depend on ``top_k`` (``retrievers.layout``):
the best ``passages_ahead`` passages, then the remaining passages alternating
with the graph lanes (entities and facts in turn, ``entities_k`` and ``facts_k``
of them); the result is that list cut at ``top_k``. So the result's ``sources``
lists the best passages before the chunks behind the graph elements, and the
first 10 hits are the same for any ``top_k`` of at least 10. Scores are the
position in that list (1, 1/2, 1/3, ...).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from typing import ClassVar, TypeVar

from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, EntityHit, EntityRef, TripletHit
from recall_engine.core.models import SourceRef
from recall_engine.core.search_types import SearchType
from recall_engine.read.api import GraphEdge, ReadAPI
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import PASSAGES_AHEAD, after_lead, alternate
from retrievers.passages import PassageConfig, passages

T = TypeVar("T")
MAX_SOURCES = 8  # chunks cited per entity: its first mentions


class HybridConfig(PassageConfig):
    """Options of HYBRID_COMPLETION (``retriever_specific_config``)."""

    entities_k: int = Field(
        default=5, ge=0, description="Entities listed (whatever top_k is); 0 lists none."
    )
    facts_k: int = Field(
        default=5, ge=0, description="Facts listed (whatever top_k is); 0 lists none."
    )
    edges_per_entity: int = Field(
        default=3, ge=0, description="Strongest edges shown per entity; 0 skips reading them."
    )
    passages_ahead: int = Field(
        default=PASSAGES_AHEAD, ge=0, description="Best passages listed before entities and facts."
    )


async def timed(timings: dict[str, float], name: str, work: Awaitable[T]) -> T:
    """Await ``work`` and add its wall time (ms) to ``timings[name]``."""
    start = time.perf_counter()
    try:
        return await work
    finally:
        elapsed = (time.perf_counter() - start) * 1000
        timings[name] = round(timings.get(name, 0.0) + elapsed, 3)


class HybridCompletionRetriever:
    """Fused passages plus the graph's entities and facts nearest the query."""

    search_type: ClassVar[str] = SearchType.HYBRID_COMPLETION
    kind: ClassVar[str] = "rag_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = HybridConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[HybridConfig]) -> RetrieverOutput:
        """Gather passages, entities and facts for the query from one query vector.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            One list, best passages first, then the other passages alternating with
            entities and facts, cut at ``ctx.top_k``; the context has one section per lane.
        """
        options = config_of(ctx, HybridConfig)
        top_k = ctx.top_k
        vector, read, timings = ctx.query_vector, ctx.read, ctx.timings
        found, entities, facts = await asyncio.gather(
            timed(timings, "hybrid.passages", passages(read, vector, query, top_k, options)),
            timed(timings, "hybrid.entities", self._entities(ctx, options.entities_k, options)),
            timed(timings, "hybrid.facts", self._facts(ctx, options.facts_k)),
        )
        graph: list[AnyHit] = alternate([hit for hit, _ in entities], facts)
        ordered = after_lead(found, graph, ahead=options.passages_ahead)[:top_k]
        hits = [hit.with_score(1.0 / (i + 1)) for i, hit in enumerate(ordered)]
        # what the cut kept of each lane is a prefix of that lane
        chunks = found[: sum(isinstance(h, ChunkHit) for h in ordered)]
        entities = entities[: sum(isinstance(h, EntityHit) for h in ordered)]
        facts = facts[: sum(isinstance(h, TripletHit) for h in ordered)]
        entity_hits = [hit for hit, _ in entities]
        return RetrieverOutput(
            hits=hits,
            context=_context(chunks, entities, facts),
            details={
                "lanes": {
                    "passages": len(chunks),
                    "entities": len(entity_hits),
                    "facts": len(facts),
                },
                "fusion": (
                    f"normalised dense+bm25 (depth {options.depth}), neighbours "
                    f"±{options.neighbour_window} x {options.neighbour_share}"
                ),
                "scoring": (
                    f"position in one list: {options.passages_ahead} passages, then "
                    "passages and entities/facts alternately"
                ),
            },
        )

    async def _entities(
        self, ctx: RetrievalContext[HybridConfig], k: int, options: HybridConfig
    ) -> list[tuple[EntityHit, list[TripletHit]]]:
        if k <= 0:
            return []
        read = ctx.read
        found = await read.nearest_entity_refs(ctx.query_vector, k)
        if not found:
            return []
        ids = [ref.id for ref, _ in found]
        mentions = await read.mentions(ids)
        edges = await read.edges_of(ids) if options.edges_per_entity > 0 else []
        names = await read.entity_refs([x for e in edges for x in (e.source_id, e.target_id)])
        cited = [c for chunks in mentions.values() for c in chunks[:MAX_SOURCES]]
        refs = await _source_refs(read, [*cited, *(e.chunk_id for e in edges)])
        # An entity's strongest edges: the (source, predicate, target) stated most often.
        support: dict[tuple[str, str, str], list[GraphEdge]] = {}
        for edge in edges:
            support.setdefault((edge.source_id, edge.predicate, edge.target_id), []).append(edge)
        out = []
        for ref, score in found:
            sources = tuple(refs[c] for c in mentions.get(ref.id, [])[:MAX_SOURCES] if c in refs)
            entity = EntityHit(
                score=score,
                sources=sources,
                dataset_id=sources[0].dataset_id if sources else None,
                dataset_name=sources[0].dataset_name if sources else None,
                id=ref.id,
                name=ref.name,
                type=ref.type,
            )
            own = sorted(
                (group for key, group in support.items() if ref.id in (key[0], key[2])),
                key=lambda group: (-len(group), group[0].id),
            )[: options.edges_per_entity]
            out.append((entity, [_triplet(g[0], names, refs, 1.0) for g in own]))
        return out

    async def _facts(self, ctx: RetrievalContext[HybridConfig], k: int) -> list[TripletHit]:
        if k <= 0:
            return []
        read = ctx.read
        found = await read.nearest_edges(ctx.query_vector, 2 * k)
        names = await read.entity_refs([x for e, _ in found for x in (e.source_id, e.target_id)])
        refs = await _source_refs(read, [e.chunk_id for e, _ in found])
        seen: set[tuple[str, str, str]] = set()
        out = []
        for edge, score in found:
            key = (edge.source_id, edge.predicate, edge.target_id)
            if key not in seen and edge.source_id in names and edge.target_id in names:
                seen.add(key)
                out.append(_triplet(edge, names, refs, score))
        return out[:k]


async def _source_refs(read: ReadAPI, chunk_ids: Sequence[str]) -> dict[str, SourceRef]:
    """Provenance of these chunks (those in scope), by chunk id."""
    hits = await read.chunks_by_id(list(dict.fromkeys(chunk_ids)))
    return {h.chunk_id: h.sources[0] for h in hits if h.sources}


def _triplet(
    edge: GraphEdge, names: dict[str, EntityRef], refs: dict[str, SourceRef], score: float
) -> TripletHit:
    ref = refs.get(edge.chunk_id)
    return TripletHit(
        score=score,
        sources=(ref,) if ref is not None else (),
        dataset_id=edge.dataset_id,
        dataset_name=ref.dataset_name if ref is not None else None,
        id=edge.id,
        source=names[edge.source_id],
        predicate=edge.predicate,
        target=names[edge.target_id],
        chunk_id=edge.chunk_id,
        data_id=edge.data_id,
    )


def _context(
    chunks: list[ChunkHit],
    entities: list[tuple[EntityHit, list[TripletHit]]],
    facts: list[TripletHit],
) -> str:
    sections = []
    if chunks:
        sections.append("Relevant passages:\n" + "\n".join(f"- {c.text}" for c in chunks))
    if entities:
        lines = []
        for entity, edges in entities:
            line = f"- {entity.text}"
            if edges:
                line += "\n" + "\n".join(f"    {e.text}" for e in edges)
            lines.append(line)
        sections.append("Relevant entities:\n" + "\n".join(lines))
    if facts:
        sections.append("Related facts:\n" + "\n".join(f"- {f.text}" for f in facts))
    return "\n\n".join(sections)
