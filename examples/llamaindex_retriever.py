"""recall-engine as a LlamaIndex retriever inside a RetrieverQueryEngine, each source
node carrying its provenance (sources, search type, dataset, score) in its metadata.

Needs: pip install 'recall-engine[llamaindex]'. The query engine uses llama-index-core's
MockLLM so it runs offline (it echoes its prompt); pass your LLM instead.
Runs on the embedded default store (./.recall_engine, or RECALL_ENGINE_DATA_DIR);
RecallEngine.connect(url, api_key=...) works the same way.
"""

import asyncio

from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine

from recall_engine import RecallEngine
from recall_engine.integrations.llamaindex import RecallRetriever

NOTES = [
    "The observatory dome is serviced every spring by the Halvard crew.",
    "The Halvard crew also calibrates the spectrograph after each service.",
]


async def main() -> None:
    async with RecallEngine() as engine:
        await engine.remember(NOTES, dataset_name="observatory")
        retriever = RecallRetriever(engine, query_type="CHUNKS", top_k=2)
        query_engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
        response = await query_engine.aquery("Who services the observatory dome?")
        # MockLLM answers with its prompt: the retrieved context is in it.
        print(f"context reached the LLM: {NOTES[0] in str(response)}")
        for found in response.source_nodes:
            metadata = found.node.metadata
            source = metadata["sources"][0]
            print(f"source {found.score:.2f} [{metadata['dataset_name']}] "
                  f"chunk {source['chunk_index']}: {found.node.get_content()}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
