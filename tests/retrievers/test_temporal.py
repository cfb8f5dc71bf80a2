"""TEMPORAL: the query's interval, the lanes it selects, and the fallback."""

from datetime import datetime

import pytest

from recall_engine import Conversation, Message, SearchType
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.time_query import asks_for_time, query_interval
from retrievers import Identity, RetrievalContext
from retrievers.temporal import TemporalConfig, TemporalRetriever

NOW = datetime(2023, 5, 10, 12, 0)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What happened in 2019?", "2019-01-01", "2020-01-01"),
        ("papers between 1990 and 2000", "1990-01-01", "2001-01-01"),
        ("from May 2021 to June 2021", "2021-05-01", "2021-07-01"),
        ("events in May 2021", "2021-05-01", "2021-06-01"),
        ("meetings in March", "2023-03-01", "2023-04-01"),
        ("What happened on 8 May 2023?", "2023-05-08", "2023-05-09"),
        ("What happened on 2023-05-08?", "2023-05-08", "2023-05-09"),
        ("What did Ann say yesterday?", "2023-05-09", "2023-05-10"),
        ("What did I do last week?", "2023-05-01", "2023-05-08"),
        ("what did we decide last month", "2023-04-01", "2023-05-01"),
        ("three days ago", "2023-05-07", "2023-05-08"),
        ("music of the 1990s", "1990-01-01", "2000-01-01"),
        ("before 2020", "0001-01-01", "2020-01-01"),
        ("after 2019", "2020-01-01", "2023-05-10"),
        ("since March 2021", "2021-03-01", "2023-05-10"),
    ],
)
def test_query_interval(query, start, end):
    interval = query_interval(query, NOW)
    assert interval is not None
    assert interval.start.date().isoformat() == start
    assert interval.end.date().isoformat() == end


@pytest.mark.parametrize("query", ["Where was Einstein born?", "Who moved from Sweden?", "May I?"])
def test_no_time_no_interval(query):
    assert query_interval(query, NOW) is None


def test_asks_for_time():
    assert asks_for_time("When did Ann move to Lyon?")
    assert asks_for_time("What year did the war end?")
    assert not asks_for_time("Where did Ann move?")


def _turn(i, text, day):
    return Message(id=f"t{i}", speaker="Ann", text=text, timestamp=datetime(2023, 5, day, 9, 0))


@pytest.fixture
async def make_ctx(engine):
    await engine.remember(
        Conversation(
            messages=[
                _turn(1, "I went hiking in the Alps with my brother.", 1),
                _turn(2, "The office printer is broken again.", 2),
                _turn(3, "I went hiking near the lake today, lovely weather.", 9),
                _turn(4, "Lunch was pasta.", 9),
            ]
        ),
        dataset_name="chat",
    )
    store = engine.store()
    ids = await engine.list_datasets()

    def make(query, *, top_k=4, scope=None):
        async def embed(text):
            return engine.embedder.embed([text])[0]

        return RetrievalContext(
            read=StoreReader(store, scope if scope is not None else [ids["chat"]]),
            query_vector=engine.embedder.embed([query])[0],
            embed=embed,
            config=TemporalConfig(),
            top_k=top_k,
            identity=Identity(tenant_id=store.tenant_id),
            reference_time=NOW,
        )

    return make


async def test_interval_lanes_rank_the_dated_turn_first(make_ctx):
    query = "Where did Ann go hiking yesterday?"
    ctx = make_ctx(query)
    out = await TemporalRetriever().retrieve(query, ctx)
    assert out.details["mode"] == "interval" and out.details["interval"].startswith("[2023-05-09")
    assert out.details["lanes"]["dated_chunks"] >= 1
    assert out.hits[0].sources[0].message_ids == ["t3"]
    assert "Relevant passages:" in out.context
    assert {"temporal.passages", "temporal.dated_chunks", "temporal.events"} <= set(ctx.timings)
    assert 0 < len(out.hits) <= 4


async def test_empty_scope_gives_no_hits(make_ctx):
    out = await TemporalRetriever().retrieve("hiking in 2023", make_ctx("hiking", scope=[]))
    assert out.hits == []


async def test_no_time_falls_back_and_says_so(make_ctx):
    query = "What is broken in the office?"
    out = await TemporalRetriever().retrieve(query, make_ctx(query))
    assert "fallback" in out.details
    assert out.search_type == SearchType.GRAPH_COMPLETION


async def test_recall_reports_the_fallback(engine):
    await engine.remember(Conversation(messages=[_turn(1, "The printer is broken.", 2)]))
    (entry,) = await engine.recall(
        "What is broken?", query_type=SearchType.TEMPORAL, only_context=True, verbose=True
    )
    assert entry.search_type != SearchType.TEMPORAL
    assert "fallback" in entry.metadata["retrieval"]
