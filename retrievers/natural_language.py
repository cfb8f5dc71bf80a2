"""NATURAL_LANGUAGE: the LLM writes Cypher from the graph schema; it runs read-only.

Up to ``max_attempts`` (3) tries: a query that fails (invalid, refused as a
write, timed out) or returns no rows is fed back with the error for the next
try. The query runs exactly like CYPHER (read-only handle, guard, timeout,
memory limit, whole-tenant scope). Needs an LLM.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import Field

from recall_engine.core.errors import InvalidInputError, LLMResponseError, StoreError
from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.cypher import rows_as_hits

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


class NaturalLanguageConfig(RetrieverConfig):
    """Options of NATURAL_LANGUAGE (``retriever_specific_config``)."""

    max_attempts: int = Field(default=3, ge=1, le=5)
    timeout_s: float = Field(default=5.0, gt=0, le=60)


class NaturalLanguageRetriever:
    """Rows of the Cypher query the LLM writes for a question."""

    search_type: ClassVar[str] = SearchType.NATURAL_LANGUAGE
    kind: ClassVar[str] = "natural_language"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "text_to_cypher"
    needs_llm: ClassVar[bool] = True
    embeds_query: ClassVar[bool] = False
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = NaturalLanguageConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[NaturalLanguageConfig]
    ) -> RetrieverOutput:
        """Have the LLM write read-only Cypher for the question, then run it.

        The graph schema goes into the prompt; a query that fails is fed back with its
        error, up to ``max_attempts`` times.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            One row hit per result row; ``details`` holds the query and every attempt.

        Raises:
            LLMResponseError: no attempt produced a usable read-only query.
        """
        options = config_of(ctx, NaturalLanguageConfig)
        if ctx.llm is None:
            raise RuntimeError("NATURAL_LANGUAGE needs ctx.llm (the pipeline checks this)")
        schema = await ctx.read.graph_schema()
        attempts: list[dict[str, str]] = []
        question = query
        for _ in range(options.max_attempts):
            reply = await ctx.llm.complete("text_to_cypher", question=question, schema=schema)
            cypher = _FENCE.sub("", reply.strip()).strip()
            try:
                result = await ctx.read.cypher(
                    cypher, timeout_s=options.timeout_s, max_rows=ctx.top_k
                )
            except (InvalidInputError, StoreError) as exc:
                if "whole tenant graph" in str(exc):
                    raise
                attempts.append({"query": cypher, "error": str(exc)})
            else:
                if result.rows:
                    details: dict[str, object] = {
                        "cypher": cypher,
                        "attempts": attempts,
                        "columns": result.columns,
                    }
                    return RetrieverOutput(
                        hits=await rows_as_hits(ctx.read, result), details=details
                    )
                attempts.append({"query": cypher, "error": "the query returned no rows"})
            question = (
                f"{query}\n\nYour previous query was:\n{cypher}\nIt failed: "
                f"{attempts[-1]['error']}\nWrite a corrected query."
            )
        if all(a["error"] == "the query returned no rows" for a in attempts):
            return RetrieverOutput(details={"attempts": attempts})
        raise LLMResponseError(
            f"The LLM wrote no usable read-only Cypher in {options.max_attempts} attempts; "
            f"last error: {attempts[-1]['error']}"
        )
