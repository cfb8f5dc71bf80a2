"""only_context=True: take recall's retrieved context and put it in your own prompt.

Runs offline on the embedded default store (./.recall_engine, or
RECALL_ENGINE_DATA_DIR). The prompt is printed; send it to any model you like.
"""

import asyncio

from recall_engine import RecallEngine, SearchType

NOTES = [
    "Grace Hopper found a moth in the Mark II relay in 1947.",
    "The Mark II was built at Harvard for the US Navy.",
    "Hopper later led the team behind COBOL.",
]
PROMPT = """You are a museum guide. Answer in one friendly sentence, citing [n].

Context:
{context}

Visitor: {question}
Guide:"""


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="history")
        question = "What did Grace Hopper find in the Mark II?"
        (context,) = await engine.recall(
            question, SearchType.RAG_COMPLETION, only_context=True, top_k=3
        )
        print(PROMPT.format(context=context.text, question=question))
        print("\nsources:", [s["document_name"] for s in context.metadata["sources"]])


if __name__ == "__main__":
    asyncio.run(main())
