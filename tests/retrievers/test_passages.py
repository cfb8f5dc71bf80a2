"""The passage lane: fusion, title lookups and the title hop, neighbour spread."""

import numpy as np
import pytest

from recall_engine import Document
from recall_engine.core.hits import ChunkHit
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.titles import named_in, title_key
from retrievers.passages import PassageConfig, fuse, normalised, passages


def _hit(chunk_id, score):
    return ChunkHit(
        score=score, chunk_id=chunk_id, data_id="d", chunk_index=0, text="", document_name="n"
    )


def test_normalised_fusion_keeps_distances():
    dense = [_hit("a", 0.9), _hit("b", 0.5), _hit("c", 0.1)]
    lexical = [_hit("c", 12.0), _hit("a", 11.0)]
    assert normalised(dense) == {"a": 1.0, "b": 0.5, "c": 0.0}
    scores = fuse([dense, lexical], [1.0, 1.0])
    assert scores["a"] == 1.0 and scores["c"] == 1.0 and scores["b"] == 0.5


def test_titles_are_named_as_written():
    index = {title_key("Lilu (mythology)"): ["d1"], title_key("It"): ["d2"], "ulm": ["d3"]}
    assert title_key("notes.md") == "notes"
    assert [t for t, _ in named_in("What is Lilu in Ulm?", index)] == ["lilu", "ulm"]
    assert named_in("is it raining?", index) == []
    assert [t for t, _ in named_in("Who directed It?", index)] == ["it"]


async def test_the_title_hop_reaches_the_page_a_passage_names(engine):
    await engine.remember(
        [
            Document(text="A physicist, born in Ulm, who developed relativity.", title="Einstein"),
            Document(text="A city on the Danube with a tall minster.", title="Ulm"),
            Document(text="A river port on the Rhine.", title="Duisburg"),
            Document(text="A small town with an old mill.", title="Mill town"),
        ],
        dataset_name="wiki",
    )
    store = engine.store()
    ids = await engine.list_datasets()
    read = StoreReader(store, [ids["wiki"]])
    query = "Which river flows through the birthplace of Einstein?"
    vector = engine.embedder.embed([query])[0]
    titled = await read.titled_chunks(query, 10)
    assert [h.document_name for h in titled] == ["Einstein"]

    def ulm(found):
        return next(h.score for h in found if h.document_name == "Ulm")

    hop = await passages(read, np.asarray(vector), query, 4, PassageConfig())
    no_hop = await passages(read, np.asarray(vector), query, 4, PassageConfig(link_share=0.0))
    assert "Einstein" in [h.document_name for h in hop[:2]]
    # Einstein's page names Ulm: Ulm gains a share of Einstein's score.
    einstein = next(h.score for h in no_hop if h.document_name == "Einstein")
    assert ulm(hop) - ulm(no_hop) == pytest.approx(0.4 * einstein)
    empty = StoreReader(store, [])
    assert await empty.titled_chunks(query, 10) == []
