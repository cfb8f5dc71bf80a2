"""A retriever defined outside the package, as a user would write one: the keyword
matches of a query, shortest chunk first. Registered by the tests that need it
(the ``registered`` fixture of ``tests/conftest.py``) and removed again afterwards."""

from __future__ import annotations

from typing import ClassVar

from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of

NAME = "SHORTEST_FIRST"


class ShortestFirstConfig(RetrieverConfig):
    """Its one option (``retriever_specific_config={"max_chars": ...}``)."""

    max_chars: int = 10_000


class ShortestFirstRetriever:
    """Chunks sharing a word with the query, shortest first (score: 1 / length)."""

    search_type: ClassVar[str] = NAME
    kind: ClassVar[str] = "shortest"
    answers: ClassVar[bool] = False
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = ShortestFirstConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[ShortestFirstConfig]
    ) -> RetrieverOutput:
        config = config_of(ctx, ShortestFirstConfig)
        assert ctx.query_vector.size == 0  # embeds_query=False: the pipeline embedded nothing
        found = await ctx.read.lexical_chunks(query, 50)
        kept = sorted(
            (h for h in found if len(h.text) <= config.max_chars), key=lambda h: len(h.text)
        )
        hits = [h.model_copy(update={"score": 1.0 / len(h.text)}) for h in kept[: ctx.top_k]]
        return RetrieverOutput(hits=list(hits), details={"max_chars": config.max_chars})
