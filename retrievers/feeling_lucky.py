"""FEELING_LUCKY: let the LLM pick the search type, then run it.

The LLM chooses from the types this call may run (``ctx.search_types``); an
answer that names none of them falls back to RAG_COMPLETION. Without an LLM
(or with ``only_context=True``) the router's choice runs. The output reports
the type that actually ran, and its results take that type's shape.
"""

from __future__ import annotations

from typing import ClassVar

from recall_engine.core.search_types import SearchType, SearchTypeName
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of

FALLBACK = SearchType.RAG_COMPLETION


class FeelingLuckyConfig(RetrieverConfig):
    """Options of FEELING_LUCKY (``retriever_specific_config``)."""

    pass


class FeelingLuckyRetriever:
    """Delegates to the search type the LLM (or, offline, the router) picks."""

    search_type: ClassVar[str] = SearchType.FEELING_LUCKY
    kind: ClassVar[str] = "rag_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = FeelingLuckyConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[FeelingLuckyConfig]
    ) -> RetrieverOutput:
        """Let the LLM pick a search type for the query (offline: the router's pick), then run it.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            That type's output; ``search_type`` names the type that ran.
        """
        config_of(ctx, FeelingLuckyConfig)
        runner = ctx.search_types
        if runner is None:
            raise RuntimeError("FEELING_LUCKY runs inside recall(), which offers search types")
        available = runner.available
        if ctx.llm is not None:
            reply = await ctx.llm.complete(
                "search_type_selection",
                query=query,
                search_types="\n".join(available),
            )
            chosen, how = pick(reply, available), "llm"
        else:
            routed = runner.routed
            chosen = routed if routed in available else None
            how = "router"
        if chosen is None:
            chosen, how = FALLBACK, f"{how} (unusable choice: fallback)"
        output = await runner.run(chosen, query, ctx)
        output.search_type = chosen
        output.details = {**output.details, "feeling_lucky": {"chose": str(chosen), "by": how}}
        return output


def pick(reply: str, available: tuple[SearchTypeName, ...]) -> SearchTypeName | None:
    """The one available type the reply names, or None.

    The exact name first, then the longest name the reply contains.
    """
    text = reply.strip().strip("`'\".").upper()
    for search_type in available:
        if text == search_type:
            return search_type
    named = [t for t in available if t in text.replace(" ", "_")]
    return max(named, key=len) if named else None
