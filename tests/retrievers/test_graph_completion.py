"""GRAPH_COMPLETION: triplets and passages ranked by vector distance and graph structure."""

from __future__ import annotations

import pytest

from recall_engine import Document, SearchType
from recall_engine.core.hits import ChunkHit, TripletHit
from retrievers.graph_completion import GraphCompletionConfig, GraphCompletionRetriever
from retrievers.graph_search import name_grams
from tests.retrievers.graph_fixtures import make_ctx, remember_docs

QUERY = "Who worked with Charles Babbage?"


async def test_relevant_query_gets_triplets_and_passages_with_sources(engine):
    await remember_docs(engine)
    out = await GraphCompletionRetriever().retrieve(
        QUERY, await make_ctx(engine, GraphCompletionRetriever, QUERY)
    )
    triplets = [h for h in out.hits if isinstance(h, TripletHit)]
    assert triplets and any(isinstance(h, ChunkHit) for h in out.hits)
    assert triplets[0].predicate == "worked_with"
    assert all(h.sources and h.sources[0].document_name for h in out.hits)
    assert out.hits[0].sources[0].document_name == "lovelace"
    scores = [h.score for h in out.hits]
    assert scores == sorted(scores, reverse=True)
    assert out.context is not None
    assert "Nodes:" in out.context and "Connections:" in out.context
    assert (
        "Ada Lovelace --[worked_with]--> Charles Babbage "
        "(Ada Lovelace worked with Charles Babbage in London.)" in out.context
    )


async def test_empty_scope_returns_nothing(engine):
    await remember_docs(engine)
    out = await GraphCompletionRetriever().retrieve(
        QUERY, await make_ctx(engine, GraphCompletionRetriever, QUERY, datasets=[])
    )
    assert out.hits == [] and out.context is None


@pytest.mark.parametrize("top_k", [1, 3])
async def test_top_k_is_respected(engine, top_k):
    await remember_docs(engine)
    ctx = await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=top_k)
    out = await GraphCompletionRetriever().retrieve(QUERY, ctx)
    assert len(out.hits) == top_k


async def test_triplets_are_deduplicated_by_source_predicate_target(engine):
    same = "Ada Lovelace worked with Charles Babbage in London."
    await engine.remember(
        [Document(text=same, title="one"), Document(text=same + " Again.", title="two")],
        dataset_name="dups",
    )
    ctx = await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=10)
    out = await GraphCompletionRetriever().retrieve(QUERY, ctx)
    keys = [h.key for h in out.hits if isinstance(h, TripletHit)]
    assert keys and len(keys) == len(set(keys))
    assert sum(1 for k in keys if k[1] == "worked_with") == 1


async def test_each_edge_has_its_own_distance(engine):
    await remember_docs(engine)
    ctx = await make_ctx(engine, GraphCompletionRetriever, "Nobel Prize Physics", top_k=10)
    out = await GraphCompletionRetriever().retrieve("Nobel Prize Physics", ctx)
    related = [t for t in out.details["triplets"] if t["key"][1] == "related_to"]
    assert len(related) >= 2
    assert len({t["distance"] for t in related}) == len(related)


async def test_a_miss_costs_the_penalty(engine):
    await remember_docs(engine)
    query = "Nobel Prize Physics"
    near = await GraphCompletionRetriever().retrieve(
        query, await make_ctx(engine, GraphCompletionRetriever, query, top_k=10)
    )
    narrow = await GraphCompletionRetriever().retrieve(
        query,
        await make_ctx(
            engine,
            GraphCompletionRetriever,
            query,
            top_k=10,
            wide_search_top_k=1,
            triplet_distance_penalty=100.0,
        ),
    )
    assert max(t["distance"] for t in near.details["triplets"]) < 6.5
    assert max(t["distance"] for t in narrow.details["triplets"]) > 100.0


async def test_unrelated_queries_do_not_return_the_same_subgraph(engine):
    """Regression: a retriever that ignores the query returns one fixed subgraph."""
    await remember_docs(engine)
    keys = []
    for query in ("Who worked with Charles Babbage?", "Where was Marie Curie born?"):
        # the best passage and a triplet it states, not the second-best passage
        ctx = await make_ctx(engine, GraphCompletionRetriever, query, top_k=2, passages_ahead=1)
        out = await GraphCompletionRetriever().retrieve(query, ctx)
        keys.append({h.key for h in out.hits})
    assert keys[0] and keys[1] and keys[0].isdisjoint(keys[1])


async def test_node_name_or_and_restrict_to_node_sets(engine):
    await remember_docs(engine)
    await engine.remember(
        Document(text="Ada Lovelace admired Marie Curie.", title="both"), dataset_name="facts"
    )

    async def documents(names, operator):
        results = await engine.recall(
            "Who are these people?",
            SearchType.GRAPH_COMPLETION,
            only_context=True,
            top_k=20,
            node_name=names,
            node_name_filter_operator=operator,
        )
        return {s["document_name"] for r in results for s in r.metadata["sources"]}

    assert await documents(["Marie Curie"], "OR") == {"curie", "both"}
    assert await documents(["Marie Curie", "Ada Lovelace"], "OR") == {"curie", "lovelace", "both"}
    assert await documents(["Marie Curie", "Ada Lovelace"], "AND") == {"both"}
    assert await documents(["Nobody Known"], "OR") == set()


async def test_recall_returns_the_context_with_ranked_sources(engine):
    await remember_docs(engine)
    (entry,) = await engine.recall(
        QUERY, SearchType.GRAPH_COMPLETION, only_context=True, verbose=True
    )
    assert entry.kind == "graph_completion" and entry.search_type == SearchType.GRAPH_COMPLETION
    assert entry.metadata["sources"][0]["document_name"] == "lovelace"
    assert "Connections:" in entry.text
    assert "graph.pagerank" in entry.metadata["timings"]


async def test_offline_answer_is_extractive(engine):
    await remember_docs(engine)
    (entry,) = await engine.recall(QUERY, SearchType.GRAPH_COMPLETION)
    assert entry.metadata["answer_mode"] == "extractive"
    assert "Ada Lovelace" in entry.text


def test_config_declares_the_recall_parameters():
    fields = GraphCompletionConfig.model_fields
    for name in (
        "node_name",
        "node_name_filter_operator",
        "wide_search_top_k",
        "triplet_distance_penalty",
    ):
        assert name in fields
    assert GraphCompletionConfig().wide_search_top_k == 100
    assert GraphCompletionConfig().triplet_distance_penalty == 6.5


def test_name_grams_cover_possessives_and_multiword_names():
    grams = name_grams("What did Charles Babbage's engine do?")
    assert {"charles babbage", "babbage", "engine"} <= grams


async def test_query_names_link_entities_and_lift_the_chunks_mentioning_them(engine):
    """With the flat bonus on (off by default), the mention edges of the entities the
    query names add a bonus to their chunks."""
    await remember_docs(engine)
    query = "What did Alice Smith do?"
    ctx = await make_ctx(engine, GraphCompletionRetriever, query, top_k=10, entity_weight=0.4)
    out = await GraphCompletionRetriever().retrieve(query, ctx)
    assert "Alice Smith" in out.details["linked_entities"]
    chunks = [h for h in out.hits if isinstance(h, ChunkHit)]
    assert chunks[0].sources[0].document_name == "billing"
    off = await make_ctx(engine, GraphCompletionRetriever, query, top_k=10, entity_weight=0.0)
    plain = await GraphCompletionRetriever().retrieve(query, off)
    first = next(h for h in plain.hits if isinstance(h, ChunkHit))
    assert chunks[0].score >= first.score + 0.4 - 1e-6
