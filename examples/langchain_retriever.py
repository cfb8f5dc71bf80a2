"""recall-engine as a LangChain retriever: a chain that answers from memory, with each
document's provenance (sources, search type, dataset, score) in its metadata.

Needs: pip install 'recall-engine[langchain]'. The chain ends in langchain-core's
FakeListLLM so it runs offline; put your chat model there instead.
Runs on the embedded default store (./.recall_engine, or RECALL_ENGINE_DATA_DIR);
RecallEngine.connect(url, api_key=...) works the same way.
"""

import asyncio

from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from recall_engine import RecallEngine
from recall_engine.integrations.langchain import RecallRetriever

NOTES = [
    "The greenhouse sensors report humidity every ten minutes to the west gateway.",
    "The west gateway forwards sensor readings to the archive server at night.",
]


def context(docs) -> str:
    return "\n".join(f"[{d.metadata['dataset_name']}] {d.page_content}" for d in docs)


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="greenhouse")
        retriever = RecallRetriever(engine, query_type="CHUNKS", top_k=2)
        question = "How often do the greenhouse sensors report humidity?"
        for doc in await retriever.ainvoke(question):
            source, score = doc.metadata["sources"][0], doc.metadata["score"]
            where = f"chunk {source['chunk_index']} of {source['data_id'][:12]}"
            print(f"{score:.2f} {doc.metadata['search_type']} {where}: {doc.page_content}")

        chain = (
            {"context": retriever | RunnableLambda(context), "question": RunnablePassthrough()}
            | PromptTemplate.from_template("Answer from the context.\n{context}\nQ: {question}")
            | FakeListLLM(responses=["Every ten minutes."])
        )
        print(f"chain answer: {await chain.ainvoke(question)}")


if __name__ == "__main__":
    asyncio.run(main())
