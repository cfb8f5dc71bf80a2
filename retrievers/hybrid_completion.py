"""HYBRID_COMPLETION: passages, entities and facts, retrieved in parallel from one
query embedding, laid out in three sections and answered by the pipeline.

Lanes (``asyncio.gather``):
- passages: dense and BM25 chunk lists fused by reciprocal rank;
- entities: the entities nearest the query, each with its strongest edges;
- facts: the relation texts nearest the query.

Hits are ranked provenance-first: the passages, then the entities, then the
facts, so the result's ``sources`` lists the passages before the chunks behind
the graph elements. Scores are the position in that context (1, 1/2, 1/3, ...).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import ClassVar, TypeVar

from pydantic import Field

from recall_engine.core.hits import AnyHit, ChunkHit, EntityHit, TripletHit
from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.passages import PassageConfig, passages

T = TypeVar("T")


class HybridConfig(PassageConfig):
    entities_k: int = Field(default=5, ge=0, description="Entities, at most a quarter of top_k.")
    facts_k: int = Field(default=5, ge=0, description="Facts, at most a quarter of top_k.")
    edges_per_entity: int = Field(default=3, ge=0, description="Strongest edges shown per entity.")


async def timed(timings: dict[str, float], name: str, work: Awaitable[T]) -> T:
    """Await ``work`` and add its wall time (ms) to ``timings[name]``."""
    start = time.perf_counter()
    try:
        return await work
    finally:
        elapsed = (time.perf_counter() - start) * 1000
        timings[name] = round(timings.get(name, 0.0) + elapsed, 3)


def lane_sizes(top_k: int, options: HybridConfig) -> tuple[int, int, int]:
    """(passages, entities, facts) so that passages keep at least half of ``top_k``."""
    entities = min(options.entities_k, top_k // 4)
    facts = min(options.facts_k, top_k // 4)
    return top_k - entities - facts, entities, facts


class HybridCompletionRetriever:
    """Fused passages plus the graph's entities and facts nearest the query."""

    search_type: ClassVar[SearchType] = SearchType.HYBRID_COMPLETION
    kind: ClassVar[str] = "rag_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = HybridConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[HybridConfig]) -> RetrieverOutput:
        options = config_of(ctx, HybridConfig)
        n_pass, n_ent, n_fact = lane_sizes(ctx.top_k, options)
        vector, read, timings = ctx.query_vector, ctx.read, ctx.timings
        chunks, entities, facts = await asyncio.gather(
            timed(timings, "hybrid.passages", passages(read, vector, query, n_pass, options)),
            timed(timings, "hybrid.entities", self._entities(ctx, n_ent, options)),
            timed(timings, "hybrid.facts", self._facts(ctx, n_fact)),
        )
        entity_hits = [hit for hit, _ in entities]
        ordered: list[AnyHit] = [*chunks, *entity_hits, *facts]
        hits = [hit.with_score(1.0 / (i + 1)) for i, hit in enumerate(ordered)]
        return RetrieverOutput(
            hits=hits,
            context=_context(chunks, entities, facts),
            details={
                "lanes": {
                    "passages": len(chunks),
                    "entities": len(entity_hits),
                    "facts": len(facts),
                },
                "fusion": f"rrf(k={options.rrf_k}, depth={options.depth})",
                "scoring": "position in the context (passages, then entities, then facts)",
            },
        )

    async def _entities(
        self, ctx: RetrievalContext[HybridConfig], k: int, options: HybridConfig
    ) -> list[tuple[EntityHit, list[TripletHit]]]:
        if k <= 0:
            return []
        found = await ctx.read.nearest_entities(ctx.query_vector, k)
        if not found or options.edges_per_entity <= 0:
            return [(e, []) for e in found]
        edges = await ctx.read.neighbourhood([e.id for e in found], depth=1, limit=50 * k)
        strongest = sorted(edges, key=lambda e: (-(e.confidence or 0.0), e.id))
        out = []
        for entity in found:
            own = [e for e in strongest if entity.id in (e.source.id, e.target.id)]
            out.append((entity, own[: options.edges_per_entity]))
        return out

    async def _facts(self, ctx: RetrievalContext[HybridConfig], k: int) -> list[TripletHit]:
        if k <= 0:
            return []
        seen: set[tuple[str, str, str]] = set()
        out = []
        for edge in await ctx.read.nearest_triplets(ctx.query_vector, 2 * k):
            if edge.key not in seen:
                seen.add(edge.key)
                out.append(edge)
        return out[:k]


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
