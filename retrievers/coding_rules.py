"""CODING_RULES: the stored rules relevant to the query, from a node set.

Rules are whatever was remembered with ``node_set=["coding_agent_rules"]`` (or
the sets named by ``node_name``); each chunk is one rule or a short rule list.
They are ranked by cosine similarity to the query within the node set, so
nothing outside the set is ever returned.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.layout import read_depth

DEFAULT_NODE_SET = "coding_agent_rules"


class CodingRulesConfig(RetrieverConfig):
    """Options of CODING_RULES (``retriever_specific_config``)."""

    node_name: tuple[str, ...] | None = Field(
        default=None, description=f"Node sets to read (default: {DEFAULT_NODE_SET!r})."
    )
    node_name_filter_operator: Literal["OR", "AND"] = "OR"


class CodingRulesRetriever:
    """Rules from node sets, nearest to the query first."""

    search_type: ClassVar[str] = SearchType.CODING_RULES
    kind: ClassVar[str] = "coding_rule"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = CodingRulesConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[CodingRulesConfig]
    ) -> RetrieverOutput:
        """Rank the rules of the node sets by similarity to the query.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            At most ``ctx.top_k`` rule chunks, best first; nothing outside the node sets.
        """
        options = config_of(ctx, CodingRulesConfig)
        node_sets = options.node_name or (DEFAULT_NODE_SET,)
        hits = await ctx.read.chunks_in_node_sets(
            node_sets,
            vector=ctx.query_vector,
            k=read_depth(ctx.top_k),
            match_all=options.node_name_filter_operator == "AND",
        )
        return RetrieverOutput(hits=list(hits[: ctx.top_k]), details={"node_sets": list(node_sets)})
