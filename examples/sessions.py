"""Sessions: answers are cached per user and session, reused, rated, and fed back.

Runs offline on the embedded default store (./.recall_engine, or
RECALL_ENGINE_DATA_DIR). Without an LLM the answers are extractive.
"""

import asyncio

from recall_engine import RecallEngine, ResponseQAEntry, SearchType

NOTES = [
    "The Difference Engine build was blocked by an outage of the connection pool.",
    "The pool size was doubled after the post-mortem, and the build resumed.",
    "Ada Lovelace reviews the engine notes every Friday.",
]


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="ops-notes")

        # With a query_type (or datasets), recall goes to the graph and, with a
        # session_id, caches the question, context and answer in the session.
        question = "What blocked the Difference Engine build?"
        (answer,) = await engine.recall(question, SearchType.RAG_COMPLETION, session_id="chat-1")
        print(f"graph answer ({answer.metadata['answer_mode']}): {answer.text}")

        # Without datasets and query_type, the session cache answers the same
        # question, even reworded; a different question goes to the graph.
        again = "Can you tell me what blocked the Difference Engine build, please?"
        for hit in await engine.recall(again, session_id="chat-1"):
            print(f"[{hit.source}] {hit.question} -> {hit.answer}")
        # (answered from the graph, then cached: a second run finds it in the session)
        for hit in await engine.recall("Who reviews the engine notes?", session_id="chat-1"):
            text = hit.answer if isinstance(hit, ResponseQAEntry) else hit.text
            print(f"[{hit.source}] a different question: {text}")

        # Rate the answer; feedback_influence ranks what it used higher next time.
        await engine.add_feedback("chat-1", answer.metadata["qa_id"], score=5, text="spot on")
        ranked = await engine.recall(
            "engine build", SearchType.CHUNKS, feedback_influence=0.5, top_k=3
        )
        for hit in ranked:
            print(f"  {hit.score:.2f}  {hit.text}")

        # only_context=True returns the context and writes nothing to the session.
        (context,) = await engine.recall(
            question, SearchType.RAG_COMPLETION, session_id="chat-1", only_context=True
        )
        print(f"context only: {len(context.metadata['sources'])} sources")


if __name__ == "__main__":
    asyncio.run(main())
