"""CYPHER: the query text is a Cypher query, run read-only on the tenant's graph.

The read API runs it on a Kuzu handle opened read-only (writes are refused by
the database itself, after a guard that also refuses files, extensions,
settings and unbounded generators), under a timeout and a memory limit.
Cypher sees the whole tenant graph, so it runs only when the caller may read,
and asks for, every dataset of the tenant; a narrower scope is refused rather
than silently widened. Rows come back in query order as ``RowHit``s; a row
that names stored chunks by id carries them as its sources.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from recall_engine.core.hits import AnyHit, RowHit
from recall_engine.core.search_types import SearchType
from recall_engine.read.api import CypherResult, ReadAPI
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of


class CypherConfig(RetrieverConfig):
    """Options of CYPHER (``retriever_specific_config``)."""

    timeout_s: float = Field(default=5.0, gt=0, le=60, description="Limit for one query.")
    parameters: dict[str, object] = Field(
        default_factory=dict, description="Values for the query's $parameters."
    )


async def rows_as_hits(read: ReadAPI, result: CypherResult) -> list[AnyHit]:
    """Rows in query order (score falls with rank); chunk ids in a row become its sources."""
    records = result.records()
    strings = {v for r in records for v in r.values() if isinstance(v, str) and len(v) < 200}
    chunks = {c.chunk_id: c for c in await read.chunks_by_id(sorted(strings))} if strings else {}
    hits: list[AnyHit] = []
    for rank, record in enumerate(records):
        found = [chunks[v] for v in record.values() if isinstance(v, str) and v in chunks]
        hits.append(
            RowHit(
                score=1.0 / (1 + rank),
                values=record,
                sources=tuple(s for c in found for s in c.sources),
                dataset_id=found[0].dataset_id if found else None,
                dataset_name=found[0].dataset_name if found else None,
            )
        )
    return hits


class CypherRetriever:
    """Rows of a caller-written, read-only Cypher query."""

    search_type: ClassVar[str] = SearchType.CYPHER
    kind: ClassVar[str] = "cypher"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = CypherConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[CypherConfig]) -> RetrieverOutput:
        """Run ``query`` as read-only Cypher on the tenant graph.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            One row hit per result row (at most ``ctx.top_k``), with the columns in
            ``details``.

        Raises:
            InvalidInputError: not valid Cypher, or a statement the read-only guard refuses.
            QueryTimeoutError: the query ran longer than ``timeout_s``.
        """
        options = config_of(ctx, CypherConfig)
        result = await ctx.read.cypher(
            query, dict(options.parameters), timeout_s=options.timeout_s, max_rows=ctx.top_k
        )
        return RetrieverOutput(
            hits=await rows_as_hits(ctx.read, result),
            details={"columns": result.columns, "truncated": result.truncated},
        )
