"""query_type overrides the router: the same question as chunks, exact words, or an answer.

Runs offline on the embedded default store (./.recall_engine, or
RECALL_ENGINE_DATA_DIR).
"""

import asyncio

from recall_engine import RecallEngine, SearchType

NOTES = [
    "Einstein was born in Ulm in 1879 and worked at the patent office in Bern.",
    "Marie Curie won Nobel Prizes in physics and chemistry.",
    "The connection pool outage blocked the build for two weeks.",
]


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="facts")
        question = "Where was Einstein born?"
        # Routed: the router picks the type; each result says what it decided.
        routed = await engine.recall('"patent office"')
        print("routed to", routed[0].search_type.value, "->", routed[0].text)
        # Pinned: raw chunks, exact (BM25) words, or an answer with its evidence.
        for hit in await engine.recall(question, SearchType.CHUNKS, top_k=2):
            print(f"CHUNKS          {hit.score:.2f} {hit.text}")
        for hit in await engine.recall("Nobel chemistry", SearchType.CHUNKS_LEXICAL, top_k=1):
            print(f"CHUNKS_LEXICAL  {hit.score:.2f} {hit.text}")
        (answer,) = await engine.recall(
            question, SearchType.RAG_COMPLETION, include_references=True, top_k=3
        )
        print(f"RAG_COMPLETION  {answer.text}")


if __name__ == "__main__":
    asyncio.run(main())
