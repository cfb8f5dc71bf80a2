"""The retriever table (golden) and a contract every registered retriever obeys."""

import pytest

from recall_engine import Conversation, Document, Message, SearchType
from retrievers import RETRIEVERS, RetrievalContext, RetrieverOutput

GOLDEN = {
    "CHUNKS": ("ChunksRetriever", "chunk", False),
    "CHUNKS_LEXICAL": ("LexicalChunksRetriever", "chunk", False),
    "RAG_COMPLETION": ("RagCompletionRetriever", "rag_completion", True),
}


def test_registry_matches_the_golden_table():
    listed = {
        t.value: (cls.__name__, cls.kind, cls.produces_answer) for t, cls in RETRIEVERS.items()
    }
    assert listed == GOLDEN
    for search_type, cls in RETRIEVERS.items():
        assert cls.search_type == search_type
        assert cls.config_model.model_config.get("frozen") is True


@pytest.fixture
async def ctx_factory(engine):
    await engine.remember(
        [
            Document(text="The billing service moved to Postgres in March.", title="billing"),
            Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
        ],
        dataset_name="docs",
    )
    await engine.remember(
        Conversation(messages=[Message(id="m1", speaker="Ann", text="Billing is on Postgres now")]),
        dataset_name="chat",
    )
    store = engine.store()
    ids = await engine.list_datasets()

    def make(retriever_cls, *, top_k=5, datasets=None):
        return RetrievalContext(
            store=store,
            embedder=engine.embedder,
            config=engine.config,
            top_k=top_k,
            dataset_ids=tuple(ids[d] for d in datasets) if datasets else None,
            options=retriever_cls.config_model(),
        )

    return make


@pytest.mark.parametrize("search_type", list(RETRIEVERS))
async def test_contract_ranked_scoped_and_with_provenance(ctx_factory, search_type):
    cls = RETRIEVERS[search_type]
    out = await cls().retrieve("billing Postgres", ctx_factory(cls, top_k=2))
    assert isinstance(out, RetrieverOutput)
    assert 0 < len(out.items) <= 2
    scores = [item.score for item in out.items]
    assert scores == sorted(scores, reverse=True)
    for item in out.items:
        assert item.sources and item.sources[0].chunk_id and item.sources[0].data_id
    scoped = await cls().retrieve("billing Postgres", ctx_factory(cls, datasets=["chat"]))
    assert scoped.items and {i.dataset_name for i in scoped.items} == {"chat"}
    assert scoped.items[0].sources[0].message_ids == ["m1"]


@pytest.mark.parametrize("search_type", list(RETRIEVERS))
async def test_contract_top_k_one(ctx_factory, search_type):
    cls = RETRIEVERS[search_type]
    out = await cls().retrieve("vegan lunch", ctx_factory(cls, top_k=1))
    assert len(out.items) == 1 and "vegan" in out.items[0].text


def test_every_search_type_is_either_registered_or_named_as_missing():
    assert set(RETRIEVERS) <= set(SearchType)
