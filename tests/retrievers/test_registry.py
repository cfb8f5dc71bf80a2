"""The retriever table (golden) and a contract every registered retriever obeys."""

from datetime import datetime

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.hits import AnyHit
from recall_engine.read.store_reader import StoreReader
from retrievers import RETRIEVERS, Identity, RetrievalContext, RetrieverOutput

# search type -> (class, result kind, answers, needs an LLM)
GOLDEN = {
    "CHUNKS": ("ChunksRetriever", "chunk", False, False),
    "CHUNKS_LEXICAL": ("LexicalChunksRetriever", "chunk", False, False),
    "RAG_COMPLETION": ("RagCompletionRetriever", "rag_completion", True, False),
    "CYPHER": ("CypherRetriever", "cypher", False, False),
    "NATURAL_LANGUAGE": ("NaturalLanguageRetriever", "natural_language", False, True),
    "FEELING_LUCKY": ("FeelingLuckyRetriever", "rag_completion", True, False),
    "CODING_RULES": ("CodingRulesRetriever", "coding_rule", False, False),
    "HYBRID_COMPLETION": ("HybridCompletionRetriever", "rag_completion", True, False),
    "GRAPH_COMPLETION": ("GraphCompletionRetriever", "graph_completion", True, False),
    "GRAPH_COMPLETION_COT": ("GraphCompletionCotRetriever", "graph_completion", True, False),
    "GRAPH_COMPLETION_CONTEXT_EXTENSION": (
        "GraphCompletionContextExtensionRetriever",
        "graph_completion",
        True,
        False,
    ),
    "GRAPH_SUMMARY_COMPLETION": (
        "GraphSummaryCompletionRetriever",
        "graph_completion",
        True,
        False,
    ),
    "GRAPH_COMPLETION_DECOMPOSITION": (
        "GraphCompletionDecompositionRetriever",
        "graph_completion",
        True,
        False,
    ),
    "TRIPLET_COMPLETION": ("TripletCompletionRetriever", "triplet_completion", True, False),
    "SUMMARIES": ("SummariesRetriever", "summary", False, False),
    "TEMPORAL": ("TemporalRetriever", "temporal", True, False),
    "AGENTIC_COMPLETION": ("AgenticCompletionRetriever", "graph_completion", True, True),
    "BROAD": ("BroadRetriever", "broad", True, False),
    "GRAPH_REPORT": ("GraphReportRetriever", "graph_report", True, False),
}


# Types the direct contract below does not fit: their query is not free text
# (CYPHER), they need an LLM, read node sets, or delegate inside recall()
# (FEELING_LUCKY), or report on the whole graph whatever the query (GRAPH_REPORT). tests/retrievers/
# test_contract.py runs every type through recall(), and each has its own tests.
NOT_DIRECT = {
    "CYPHER",
    "NATURAL_LANGUAGE",
    "AGENTIC_COMPLETION",
    "CODING_RULES",
    "FEELING_LUCKY",
    "GRAPH_REPORT",
}
DIRECT = [t for t in RETRIEVERS if t.value not in NOT_DIRECT]


def test_registry_matches_the_golden_table():
    listed = {
        t.value: (cls.__name__, cls.kind, cls.answers, cls.needs_llm)
        for t, cls in RETRIEVERS.items()
    }
    assert listed == GOLDEN
    for search_type, cls in RETRIEVERS.items():
        assert cls.search_type == search_type
        assert cls.config_model.model_config.get("frozen") is True
        assert cls.config_model.model_config.get("extra") == "forbid"


async def _docs_and_chat(engine: RecallEngine) -> None:
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


@pytest.fixture
async def engine(tmp_path, hash_embedder, prebuilt):
    """A fresh copy per test of the docs and chat datasets (ingested once per session)."""
    eng = RecallEngine(prebuilt(_docs_and_chat, tmp_path / "data"), embedder=hash_embedder)
    yield eng
    eng.close()


@pytest.fixture
async def ctx_factory(engine):
    store = engine.store()
    ids = await engine.list_datasets()

    def make(retriever_cls, query, *, top_k=5, datasets=None):
        scope = [ids[d] for d in datasets] if datasets else list(ids.values())

        async def embed(text):
            return engine.embedder.embed([text])[0]

        return RetrievalContext(
            read=StoreReader(store, scope),
            query_vector=engine.embedder.embed([query])[0],
            embed=embed,
            config=retriever_cls.config_model(),
            top_k=top_k,
            identity=Identity(tenant_id=store.tenant_id),
            reference_time=datetime(2024, 1, 1),
        )

    return make


@pytest.mark.parametrize("search_type", DIRECT)
async def test_contract_ranked_scoped_and_with_provenance(ctx_factory, search_type):
    cls = RETRIEVERS[search_type]
    query = "billing Postgres"
    out = await cls().retrieve(query, ctx_factory(cls, query, top_k=2))
    assert isinstance(out, RetrieverOutput)
    assert 0 < len(out.hits) <= 2
    assert all(isinstance(hit, AnyHit) for hit in out.hits)
    scores = [hit.score for hit in out.hits]
    assert scores == sorted(scores, reverse=True)
    for hit in out.hits:
        assert hit.sources and hit.sources[0].chunk_id and hit.sources[0].data_id
    scoped = await cls().retrieve(query, ctx_factory(cls, query, datasets=["chat"]))
    assert scoped.hits and {h.dataset_name for h in scoped.hits} == {"chat"}
    assert scoped.hits[0].sources[0].message_ids == ["m1"]


@pytest.mark.parametrize("search_type", DIRECT)
async def test_contract_top_k_one(ctx_factory, search_type):
    cls = RETRIEVERS[search_type]
    out = await cls().retrieve("vegan lunch", ctx_factory(cls, "vegan lunch", top_k=1))
    assert len(out.hits) == 1 and "vegan" in out.hits[0].text


@pytest.mark.parametrize("search_type", DIRECT)
async def test_contract_wrong_config_type_is_refused(ctx_factory, search_type):
    cls = RETRIEVERS[search_type]
    other = next(c for c in RETRIEVERS.values() if c.config_model is not cls.config_model)
    ctx = ctx_factory(other, "vegan lunch")
    with pytest.raises(TypeError, match="expected a"):
        await cls().retrieve("vegan lunch", ctx)


def test_every_search_type_has_a_retriever():
    assert set(RETRIEVERS) == set(SearchType)
