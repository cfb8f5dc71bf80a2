"""GRAPH_SUMMARY_COMPLETION: summarise the graph context, then answer from the summary.

With an LLM the summary is ``summarize_search_results`` over the graph
context; offline it is extractive: the best connections and passages, one
line each, labelled as such. The answer stage answers from the summary.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_output import graph_output
from retrievers.graph_search import GraphSearchConfig, question_search, render_context


class GraphSummaryConfig(GraphSearchConfig):
    """Options of GRAPH_SUMMARY_COMPLETION (``retriever_specific_config``)."""

    offline_lines: int = Field(
        default=5,
        ge=1,
        description="Lines of the offline summary (no LLM): more for broader questions.",
    )


class GraphSummaryCompletionRetriever:
    """Graph completion answered from a summary of the graph context."""

    search_type: ClassVar[str] = SearchType.GRAPH_SUMMARY_COMPLETION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphSummaryConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphSummaryConfig]
    ) -> RetrieverOutput:
        """Run the graph search, then summarise its context for the answer stage.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            The graph search's hits; the context is the summary (the LLM's, or an
            extractive one offline).
        """
        options = config_of(ctx, GraphSummaryConfig)
        result = await question_search(query, ctx, options)
        output = graph_output(result)
        if not result.hits:
            return output
        if ctx.llm is not None:
            summary = await ctx.llm.complete(
                "summarize_search_results", query=query, context=render_context(result)
            )
            mode = "llm"
        else:
            lines = [h.text.strip() for h in result.hits[: options.offline_lines]]
            summary = "\n".join(f"- {line}" for line in lines)
            mode = "extractive"
        output.context = f"Summary of the knowledge graph context ({mode}):\n{summary}"
        output.details["summary"] = {"mode": mode, "text": summary}
        return output
