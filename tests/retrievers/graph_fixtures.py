"""Shared corpus and context builder for the graph-completion family's tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from recall_engine import Document, RecallEngine
from recall_engine.read.store_reader import StoreReader
from retrievers import Identity, RetrievalContext

DOCS = [
    Document(
        text="Ada Lovelace worked with Charles Babbage in London. "
        "Babbage designed the Analytical Engine.",
        title="lovelace",
    ),
    Document(
        text="Marie Curie was born in Warsaw. Curie won the Nobel Prize in Physics "
        "with Pierre Curie.",
        title="curie",
    ),
    Document(
        text="The billing service moved to Postgres in March. Alice Smith leads the billing team.",
        title="billing",
    ),
    Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
]


async def remember_docs(engine: RecallEngine, dataset: str = "facts") -> None:
    await engine.remember(DOCS, dataset_name=dataset)


async def make_ctx(
    engine: RecallEngine,
    retriever_cls: Any,
    query: str,
    *,
    top_k: int = 5,
    datasets: list[str] | None = None,
    llm: Any = None,
    **config: Any,
) -> RetrievalContext[Any]:
    """A retrieval context over the engine's store, as the pipeline builds one."""
    ids = await engine.list_datasets()
    scope = [ids[d] for d in datasets] if datasets is not None else list(ids.values())

    async def embed(text: str) -> Any:
        return engine.embedder.embed([text])[0]

    return RetrievalContext(
        read=StoreReader(engine.store(), scope),
        query_vector=engine.embedder.embed([query])[0],
        embed=embed,
        config=retriever_cls.config_model(**config),
        top_k=top_k,
        identity=Identity(tenant_id=engine.store().tenant_id),
        reference_time=datetime(2024, 1, 1),
        llm=llm,
    )
