"""Remember the files in examples/data, then ask questions about them.

Runs offline on the embedded default store (./.recall_engine, or
RECALL_ENGINE_DATA_DIR). Run it twice: the second ingest adds nothing.
"""

import asyncio
from pathlib import Path

from recall_engine import RecallEngine, SearchType

DATA = Path(__file__).parent / "data"


async def main() -> None:
    async with RecallEngine() as engine:
        stored = await engine.remember(DATA, dataset_name="examples")
        print(
            f"remembered {len(stored.data_ids)} items ({len(stored.new_data_ids)} new, "
            f"{stored.chunk_count} new chunks) in {stored.timings['total_s']:.1f}s"
        )
        question = "What caused the outage that blocked the Difference Engine build?"
        print(f"\nQ: {question}")
        for hit in await engine.recall(question, SearchType.CHUNKS, top_k=3):
            print(f"  {hit.score:.2f}  [{hit.metadata['document_name']}] {hit.text[:90]}")
        # No query_type: the router picks (GRAPH_COMPLETION for a question like this one).
        answer = (await engine.recall(question, top_k=5))[0]
        mode = answer.metadata["answer_mode"]
        print(f"\nA ({answer.search_type.value}, {mode}): {answer.text}")
        print(f"   sources: {[s['document_name'] for s in answer.metadata['sources'][:3]]}")
        for hit in await engine.recall('"connection pool"', SearchType.CHUNKS_LEXICAL, top_k=3):
            print(f"  bm25 {hit.score:.2f}  {hit.text[:90]}")


if __name__ == "__main__":
    asyncio.run(main())
