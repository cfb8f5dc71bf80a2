"""``graph_context`` of a recall: paths the query leads to, and the relations
stated in each returned chunk, grouped so a chunk finds its own.

- ``query_paths``: the relations nearest to the query in meaning, and the
  shortest paths (up to three edges) between the entities the query names.
- ``chunk_relations``: one group (``g_<n>``) per returned chunk that states
  relations, holding them; ``chunk_id_to_group_ids`` maps that chunk's id to
  its group, so every key is a returned chunk and every group id exists.
"""

from __future__ import annotations

import numpy as np

from recall_engine.core.hits import ChunkHit
from recall_engine.core.hydra import GraphContext, ScoredPathResponse
from recall_engine.core.results import to_triplet
from recall_engine.read.linking import link_entities
from recall_engine.read.tenant_reader import TenantReader

QUERY_RELATIONS = 5
MIN_RELATION_SCORE = 0.2


async def build_graph_context(
    reader: TenantReader, query: str, vector: np.ndarray, ranked: list[ChunkHit]
) -> GraphContext:
    context = GraphContext()
    in_scope = {hit.chunk_id for hit in ranked}
    nearest = await reader.nearest_triplets(vector, QUERY_RELATIONS)
    for n, edge in enumerate(e for e in nearest if e.score >= MIN_RELATION_SCORE):
        context.query_paths.append(
            ScoredPathResponse(
                triplets=[to_triplet(edge)],
                relevancy_score=round(float(edge.score), 6),
                combined_context=edge.context or None,
                group_id=f"q_{n}",
                source_chunk_ids=[edge.chunk_id] if edge.chunk_id in in_scope else None,
            )
        )
    named = await link_entities(reader, query)
    ids = list(dict.fromkeys(e.id for e in named))
    if len(ids) >= 2:
        for path in await reader.paths(ids[:1], ids[1:4], max_length=3):
            if path.edges:
                context.query_paths.append(
                    ScoredPathResponse(
                        triplets=[to_triplet(e) for e in path.edges],
                        relevancy_score=round(1.0 / path.length, 6),
                        combined_context=" ; ".join(e.context for e in path.edges if e.context)
                        or None,
                        group_id=f"q_{len(context.query_paths)}",
                    )
                )
    relations = await reader.chunk_relations([hit.chunk_id for hit in ranked])
    for item in ranked:
        edges = relations.get(item.chunk_id)
        if not edges:
            continue
        group = f"g_{len(context.chunk_relations)}"
        context.chunk_relations.append(
            ScoredPathResponse(
                triplets=[to_triplet(e) for e in edges],
                relevancy_score=round(float(item.score), 6),
                combined_context=" ; ".join(e.context for e in edges if e.context) or None,
                group_id=group,
                source_chunk_ids=[item.chunk_id],
            )
        )
        context.chunk_id_to_group_ids[item.chunk_id] = [group]
    return context
