"""The passage lane: fusion, title lookups and the title hop, neighbour spread."""

import numpy as np
import pytest

from recall_engine import Document
from recall_engine.core.hits import ChunkHit
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.titles import named_in, title_key
from retrievers.passages import FOLLOWS, PassageConfig, _followed_link, fuse, normalised, passages


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
    names = [h.document_name for h in hop]
    assert "Einstein" in names[:2]
    # Einstein's page names Ulm (and no other page): Ulm gains a share of Einstein's
    # score and is ranked right after it.
    assert names[names.index("Einstein") + 1] == "Ulm"
    einstein = next(h.score for h in no_hop if h.document_name == "Einstein")
    assert ulm(hop) == pytest.approx(max(ulm(no_hop) + 0.4 * einstein, FOLLOWS * einstein))
    empty = StoreReader(store, [])
    assert await empty.titled_chunks(query, 10) == []


@pytest.mark.parametrize(
    "option", [{"title_weight": 0.0}, {"link_seeds": 0}, {"follow_links": False}]
)
async def test_each_title_option_changes_the_ranking(engine, option):
    await engine.remember(
        [
            Document(text="A physicist, born in Ulm, who developed relativity.", title="Einstein"),
            Document(text="A city on the Danube with a tall minster.", title="Ulm"),
            Document(text="A river port on the Rhine.", title="Duisburg"),
        ],
        dataset_name="wiki",
    )
    ids = await engine.list_datasets()
    read = StoreReader(engine.store(), [ids["wiki"]])
    query = "Which river flows through the birthplace of Einstein?"
    vector = np.asarray(engine.embedder.embed([query])[0])

    async def ranked(config):
        return [(h.document_name, h.score) for h in await passages(read, vector, query, 3, config)]

    assert await ranked(PassageConfig(**option)) != await ranked(PassageConfig())


def test_a_seed_is_followed_by_the_link_the_query_reaches_or_by_its_only_link():
    def hit(chunk_id, data_id):
        return ChunkHit(
            score=1.0, chunk_id=chunk_id, data_id=data_id, chunk_index=0, text="", document_name=""
        )

    hits = {c: hit(c, d) for c, d in [("a1", "A"), ("a2", "A"), ("b1", "B"), ("c1", "C")]}
    # several documents named: the one the query reaches best, whatever its order
    assert _followed_link(["a1", "b1", "c1"], {"b1": 0.2, "c1": 0.1}, hits) == "b1"
    # several named, none reached: the seed is not followed
    assert _followed_link(["a1", "b1"], {"x": 0.9}, hits) is None
    # one document named (two chunks), not reached: its first chunk
    assert _followed_link(["a1", "a2"], {}, hits) == "a1"
    assert _followed_link([], {}, hits) is None
