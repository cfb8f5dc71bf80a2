"""recall()'s metadata_filters and recency_bias, embedded and through the server:
a filter narrows every search type's chunks, recency puts the newest relevant
memory first, and a bad value is refused before anything runs."""

from __future__ import annotations

import uuid
from datetime import datetime

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES
from recall_engine.errors import InvalidInputError
from recall_engine.testing import DeterministicEmbedder
from retrievers import RETRIEVERS
from tests.own_loop import run_on_own_loop
from tests.remote_fixture import MODES, built, engine_in_mode, serve

QUESTION = "Who runs Postgres for the billing service?"
# Types that can run offline (no LLM to retrieve) and read chunks.
OFFLINE = [
    t
    for t, cls in RETRIEVERS.items()
    if not cls.needs_llm and t not in CYPHER_SEARCH_TYPES and t is not SearchType.CODING_RULES
]


async def _fill(eng) -> None:
    await eng.remember(
        [
            Document(
                text="Ada Lovelace runs Postgres for the billing service.",
                title="billing",
                metadata={"team": "billing", "tier": 1},
            ),
            Document(
                text="Grace Hopper runs Postgres backups for the search service.",
                title="search",
                metadata={"team": "search", "tier": 2},
            ),
        ],
        dataset_name="docs",
    )


def _shown(results) -> str:
    return " ".join(f"{r.text} {r.raw}" for r in results)


@pytest.fixture(scope="module", params=MODES)
def engine(request, tmp_path_factory):
    """One filled engine per mode for the module: the tests below only read (a bad value
    changes nothing; the one session they write to is checked from empty first)."""
    path = tmp_path_factory.mktemp("narrowing") / "data"
    with built(request.param, path, embedder=DeterministicEmbedder()) as eng:
        run_on_own_loop(lambda: _fill(eng))
        yield eng


@pytest.mark.parametrize("search_type", OFFLINE)
async def test_a_metadata_filter_narrows_every_search_types_chunks(engine, search_type):
    unfiltered = await engine.recall(QUESTION, search_type, only_context=True)
    assert "Ada" in _shown(unfiltered)  # the question is about the billing memory
    results = await engine.recall(
        QUESTION, search_type, only_context=True, metadata_filters={"team": "search"}
    )
    assert results and "Grace" in _shown(results) and "Ada" not in _shown(results)
    both = {"team": "search", "tier": 1}  # all keys must match: nothing does
    assert (
        await engine.recall(QUESTION, search_type, only_context=True, metadata_filters=both) == []
    )


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ({"tier": {"$gte": 2}}, "Grace"),
        ({"team": {"$in": ["search", "ops"]}}, "Grace"),
        ({"team": {"$ne": "search"}}, "Ada"),
        ({"$or": [{"tier": 1}, {"team": "nobody"}]}, "Ada"),
        ({"tier": {"$not": {"$lt": 2}}, "team": {"$exists": True}}, "Grace"),
    ],
)
async def test_a_filter_with_operators_narrows_the_chunks(engine, query, kept):
    results = await engine.recall(QUESTION, "CHUNKS", only_context=True, metadata_filters=query)
    dropped = "Ada" if kept == "Grace" else "Grace"
    assert results and kept in _shown(results) and dropped not in _shown(results)


async def test_a_filter_on_a_cypher_type_is_refused(engine):
    with pytest.raises(InvalidInputError, match="does not apply to CYPHER"):
        await engine.recall("MATCH (c:Chunk) RETURN c.id", "CYPHER", metadata_filters={"a": 1})


async def _dated(eng) -> None:
    texts = [
        ("Ada moved to London for the billing job in spring.", datetime(2021, 3, 1)),
        ("Ada moved to Paris for a billing job.", datetime(2022, 3, 1)),
        ("Ada moved to Rome, her billing job.", datetime(2023, 3, 1)),
    ]
    for n, (text, when) in enumerate(texts):
        await eng.remember(
            Document(text=text, title=f"move {n}", created_at=when), dataset_name="m"
        )


@pytest.mark.parametrize("mode", MODES)
async def test_recency_bias_puts_the_newest_relevant_memory_first(mode, tmp_path, hash_embedder):
    async for eng in engine_in_mode(mode, tmp_path / "data", hash_embedder):
        await _dated(eng)
        query = "Where did Ada move for the billing job in spring?"
        plain = await eng.recall(query, "CHUNKS", top_k=3)
        assert "London" in plain[0].text  # the most relevant: the oldest
        newest = await eng.recall(query, "CHUNKS", top_k=3, recency_bias=1.0)
        assert "Rome" in newest[0].text
        assert {r.text for r in newest} == {r.text for r in plain}
        assert [r.text for r in await eng.recall(query, "CHUNKS", top_k=3, recency_bias=0.0)] == [
            r.text for r in plain
        ]


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("recency_bias", -0.1, "recency_bias must be a number from 0"),
        ("recency_bias", 1.5, "recency_bias must be a number from 0"),
        ("recency_bias", "high", "recency_bias must be a number from 0"),
        ("recency_bias", True, "recency_bias must be a number from 0"),
        ("metadata_filters", "team=search", "metadata_filters must be a dict"),
        ("metadata_filters", {"$gt": 1}, "compares a field"),
        ("metadata_filters", {"n": {"$near": 1}}, "unknown operator '\\$near'"),
        ("metadata_filters", {"n": {"$in": 1}}, "takes a list"),
        ("metadata_filters", {"team": ["a", "b"]}, "pass one string, number, bool or None"),
        ("metadata_filters", {"team": {"name": "a"}}, "pass one string, number, bool or None"),
        ("metadata_filters", {"": "a"}, "keys must be non-empty strings"),
        ("metadata_filters", {f"k{n}": n for n in range(33)}, "at most 32"),
    ],
)
async def test_a_bad_value_is_refused_and_changes_nothing(engine, option, value, message):
    session = f"s-{uuid.uuid4().hex}"  # the engine is the module's: a session of its own
    before = await engine.list_items()
    with pytest.raises(InvalidInputError, match=message):
        await engine.recall(QUESTION, "RAG_COMPLETION", session_id=session, **{option: value})
    assert await engine.list_items() == before
    # No answer was written to the session: it has no cached entry to answer from.
    assert {r.source for r in await engine.recall(QUESTION, session_id=session)} == {"graph"}
    await engine.recall(QUESTION, "RAG_COMPLETION", session_id=session)  # a valid call writes one
    assert {r.source for r in await engine.recall(QUESTION, session_id=session)} == {"session"}


async def test_remote_answers_as_embedded(tmp_path, hash_embedder):
    async with RecallEngine(tmp_path / "data", embedder=hash_embedder) as eng:
        await _fill(eng)
        await _dated(eng)
        served = serve(eng)
        remote = served.connect()
        try:
            for options in (
                {"metadata_filters": {"team": "search"}},
                {"metadata_filters": {"tier": 1}, "recency_bias": 0.5},
                {"recency_bias": 1.0, "top_k": 4},
            ):
                for search_type in ("CHUNKS", "HYBRID_COMPLETION", "GRAPH_COMPLETION"):
                    kw = {"only_context": True, **options}
                    here = await eng.recall(QUESTION, search_type, **kw)
                    there = await remote.recall(QUESTION, search_type, **kw)
                    assert [r.model_dump() for r in there] == [r.model_dump() for r in here]
        finally:
            await remote.aclose()
            served.stop()


async def test_an_answer_from_filtered_items_is_not_given_again_without_the_filter(engine):
    session = f"s-{uuid.uuid4().hex}"
    narrowed = await engine.recall(
        QUESTION, "RAG_COMPLETION", session_id=session, metadata_filters={"team": "search"}
    )
    assert "Grace Hopper" in _shown(narrowed) and "Ada" not in _shown(narrowed)
    results = await engine.recall(QUESTION, session_id=session)
    assert {r.source for r in results} == {"graph"}  # the memory, not the narrowed answer
    assert "Ada Lovelace" in _shown(results)
