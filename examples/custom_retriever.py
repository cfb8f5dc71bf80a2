"""Add a search type without editing the package: a retriever class, registered by name.

The new type then works wherever a built-in does: recall(query_type=...), router
rules, the HTTP server and the MCP tool. Runs offline on the embedded default store
(./.recall_engine, or RECALL_ENGINE_DATA_DIR).
"""

import asyncio
from typing import ClassVar

from recall_engine import RecallEngine, register_retriever
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of

NOTES = [
    "The connection pool outage blocked the build for two weeks.",
    "A pool of candidates applied for the build engineer role.",
    "Marie Curie won Nobel Prizes in physics and chemistry.",
]


class PhraseConfig(RetrieverConfig):
    """Options, passed as retriever_specific_config={"case_sensitive": True}."""

    case_sensitive: bool = False


class ExactPhraseRetriever:
    """Chunks that contain the query as one exact phrase, best BM25 score first."""

    search_type: ClassVar[str] = "EXACT_PHRASE"
    kind: ClassVar[str] = "chunk"  # results' kind
    answers: ClassVar[bool] = False  # ranked items, no generated answer
    prompt: ClassVar[str] = "answer_from_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = False  # BM25 only: the pipeline embeds nothing
    config_model: ClassVar[type[RetrieverConfig]] = PhraseConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[PhraseConfig]) -> RetrieverOutput:
        config = config_of(ctx, PhraseConfig)
        fold = (lambda s: s) if config.case_sensitive else str.lower
        candidates = await ctx.read.lexical_chunks(query, 50)
        hits = [hit for hit in candidates if fold(query) in fold(hit.text)]
        return RetrieverOutput(hits=list(hits[: ctx.top_k]))


register_retriever("EXACT_PHRASE", ExactPhraseRetriever)


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="facts")
        for hit in await engine.recall("connection pool", query_type="EXACT_PHRASE"):
            print(f"{hit.search_type}: {hit.text} (BM25 {hit.score:.2f})")


if __name__ == "__main__":
    asyncio.run(main())
