"""A hop with ``hop_vector_share`` searches with a vector built from stored ones:
no second embedding."""

from __future__ import annotations

import numpy as np

from recall_engine.read.store_reader import StoreReader
from retrievers.graph_completion import GraphCompletionRetriever
from retrievers.hop_vector import blend
from tests.retrievers.graph_fixtures import make_ctx, remember_docs

QUERY = "Where was the collaborator of Ada Lovelace born?"  # a bridge: the hop runs


async def _hop(engine, **config):
    ctx = await make_ctx(
        engine, GraphCompletionRetriever, QUERY, top_k=10, follow_up_hops=1, **config
    )
    asked: list[str] = []

    async def counting_embed(text: str) -> np.ndarray:
        asked.append(text)
        return engine.embedder.embed([text])[0]

    ctx = ctx.__class__(**{**vars(ctx), "embed": counting_embed})
    out = await GraphCompletionRetriever().retrieve(QUERY, ctx)
    return out, asked


async def test_the_hop_with_a_vector_share_embeds_nothing_more(engine):
    await remember_docs(engine)
    embedded, asked = await _hop(engine)
    assert len(asked) == 1 and asked[0].startswith(QUERY + " ")  # the hop's own embedding
    stored, asked = await _hop(engine, hop_vector_share=0.5)
    assert asked == []
    rounds = stored.details["rounds"]
    assert len(rounds) == 2
    assert rounds[1]["query"] == embedded.details["rounds"][1]["query"]  # same text searched
    assert stored.hits[0].text == embedded.hits[0].text  # the first round still leads


def test_blend_is_the_weighted_sum_at_unit_length():
    q, e = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    out = blend(q, e, 0.5)
    assert out is not None
    assert np.allclose(out, np.array([1.0, 0.5, 0.0]) / np.sqrt(1.25))
    assert out.dtype == np.float32
    assert blend(q, -q, 1.0) is None  # no length: the caller embeds the text instead


async def test_chunk_vectors_are_the_stored_ones_within_the_scope(engine):
    await remember_docs(engine, "facts")
    await engine.remember("Grace Hopper wrote the first compiler.", dataset_name="other")
    ids = await engine.list_datasets()
    store = engine.store()
    chunks = store.index.records([ids["facts"]]), store.index.records([ids["other"]])
    facts, other = chunks[0][0].id, chunks[1][0].id
    read = StoreReader(store, [ids["facts"]])
    found = await read.chunk_vectors([facts, other, "missing"])
    assert set(found) == {facts}
    assert np.isclose(float(np.linalg.norm(found[facts])), 1.0, atol=1e-3)
    hit = (await read.chunks_by_id([facts]))[0]
    dense = await read.dense_chunks(found[facts], 1)
    assert dense[0].chunk_id == hit.chunk_id  # its own stored vector finds it first
