"""HYBRID_COMPLETION: three lanes, three sections, provenance-first ranking."""

from datetime import datetime

import pytest

from recall_engine import Document, SearchType
from recall_engine.core.hits import ChunkHit
from recall_engine.read.store_reader import StoreReader
from retrievers import Identity, RetrievalContext
from retrievers.hybrid_completion import HybridCompletionRetriever, HybridConfig

DOCS = [
    Document(text="Marie Curie worked in Paris with Pierre Curie.", title="curie"),
    Document(text="Albert Einstein was born in Ulm and worked in Bern.", title="einstein"),
    Document(text="The cafeteria serves vegan lunch on Fridays.", title="food"),
]


@pytest.fixture
async def make_ctx(engine):
    await engine.remember(DOCS, dataset_name="science")
    await engine.remember("An unrelated note.", dataset_name="empty-ish")
    store = engine.store()
    ids = await engine.list_datasets()

    def make(query, *, top_k=10, scope=None, **config):
        async def embed(text):
            return engine.embedder.embed([text])[0]

        return RetrievalContext(
            read=StoreReader(store, scope if scope is not None else [ids["science"]]),
            query_vector=engine.embedder.embed([query])[0],
            embed=embed,
            config=HybridConfig(**config),
            top_k=top_k,
            identity=Identity(tenant_id=store.tenant_id),
            reference_time=datetime(2024, 1, 1),
        )

    return make


async def test_lanes_run_and_sections_are_present(make_ctx):
    query = "Where was Albert Einstein born?"
    ctx = make_ctx(query, top_k=12)
    out = await HybridCompletionRetriever().retrieve(query, ctx)
    assert "Relevant passages:" in out.context
    assert "Relevant entities:" in out.context
    assert "Related facts:" in out.context
    assert out.details["lanes"]["entities"] > 0 and out.details["lanes"]["facts"] > 0
    assert {"hybrid.passages", "hybrid.entities", "hybrid.facts"} <= set(ctx.timings)
    kinds = [h.kind for h in out.hits]
    # provenance-first: every passage comes before any graph element
    assert kinds[0] == "chunk" and kinds.index("entity") > max(
        i for i, k in enumerate(kinds) if k == "chunk"
    )
    scores = [h.score for h in out.hits]
    assert scores == sorted(scores, reverse=True)
    assert any("Ulm" in h.text for h in out.hits if isinstance(h, ChunkHit))


async def test_empty_scope_gives_no_hits(make_ctx):
    out = await HybridCompletionRetriever().retrieve("Einstein", make_ctx("Einstein", scope=[]))
    assert out.hits == []


@pytest.mark.parametrize("top_k", [1, 2, 5, 12])
async def test_top_k_is_respected(make_ctx, top_k):
    out = await HybridCompletionRetriever().retrieve("Curie", make_ctx("Curie", top_k=top_k))
    assert 0 < len(out.hits) <= top_k


async def test_graph_lanes_follow_the_leading_passages_whatever_top_k(make_ctx):
    query = "Where was Albert Einstein born?"
    lists = []
    for top_k in (4, 12):
        ctx = make_ctx(query, top_k=top_k, passages_ahead=2)
        lists.append(
            [
                (h.kind, h.text)
                for h in (await HybridCompletionRetriever().retrieve(query, ctx)).hits
            ]
        )
    short, long = lists
    assert long[: len(short)] == short
    kinds = [kind for kind, _ in long]
    # two passages ahead, then the third passage, then entities and facts alternately
    assert kinds[:5] == ["chunk", "chunk", "chunk", "entity", "triplet"]


async def test_recall_only_context_lists_passage_sources_first(engine):
    await engine.remember(DOCS, dataset_name="science")
    results = await engine.recall(
        "Where was Einstein born?",
        query_type=SearchType.HYBRID_COMPLETION,
        only_context=True,
        top_k=8,
        verbose=True,
    )
    (entry,) = results
    assert entry.kind == "rag_completion"
    assert entry.metadata["answer_mode"] == "context_only"
    assert entry.metadata["sources"][0]["document_name"] == "einstein"
    assert "hybrid.passages" in entry.metadata["timings"]
