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
        # open ends and rolling windows keep all of the reference day
        ("after 2019", "2020-01-01", "2023-05-11"),
        ("since March 2021", "2021-03-01", "2023-05-11"),
        # relative phrases (issue 18), NOW = Wednesday 2023-05-10 12:00
        ("What did Liam tell Priya last March?", "2023-03-01", "2023-04-01"),
        ("What did we decide last month?", "2023-04-01", "2023-05-01"),
        ("What happened in the last 12 months?", "2022-05-10", "2023-05-11"),
        ("What did Ann say two weeks ago?", "2023-04-24", "2023-05-01"),
        ("What did Ann do this year?", "2023-01-01", "2024-01-01"),
        ("What changed since January?", "2023-01-01", "2023-05-11"),
        ("Since January what changed?", "2023-01-01", "2023-05-11"),
        ("over the past two weeks", "2023-04-26", "2023-05-11"),
        ("in the past year", "2022-05-10", "2023-05-11"),
        ("last year", "2022-01-01", "2023-01-01"),
        ("earlier this year", "2023-01-01", "2023-05-11"),
        ("during the previous month", "2023-04-01", "2023-05-01"),
        ("three months ago", "2023-02-01", "2023-03-01"),
        ("What did Ann do last summer?", "2022-06-01", "2022-09-01"),
        ("What did Ann do between March and May?", "2023-03-01", "2023-06-01"),
        ("What has Ann done since last month?", "2023-04-01", "2023-05-11"),
        ("What happened before last March?", "0001-01-01", "2023-03-01"),
        # a bare year where the words make it one
        ("What did Ann do during the year 2021?", "2021-01-01", "2022-01-01"),
        ("Where did Ann go in summer 2021?", "2021-01-01", "2022-01-01"),
        ("What happened by 2019?", "2019-01-01", "2020-01-01"),
    ],
)
def test_query_interval(query, start, end):
    interval = query_interval(query, NOW)
    assert interval is not None
    assert interval.start.date().isoformat() == start
    assert interval.end.date().isoformat() == end


@pytest.mark.parametrize(
    "query",
    [
        "Where was Einstein born?",
        "Who moved from Sweden?",
        "May I?",
        # a four-digit number the words do not make a year
        "Is room 2024 free?",
        "What did Ann pay for the 1200 bike?",
        "Who walked from room 2024 to the lab?",
        "Was it between 2000 and 3000 dollars?",
    ],
)
def test_no_time_no_interval(query):
    assert query_interval(query, NOW) is None


def test_asks_for_time():
    assert asks_for_time("When did Ann move to Lyon?")
    assert asks_for_time("What year did the war end?")
    assert not asks_for_time("Where did Ann move?")
    assert asks_for_time("Do you remember when was the launch?")
    assert not asks_for_time("Who was Ann's neighbour when she lived in Lyon?")


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

    def make(query, *, top_k=4, scope=None, config=None):
        async def embed(text):
            return engine.embedder.embed([text])[0]

        return RetrievalContext(
            read=StoreReader(store, scope if scope is not None else [ids["chat"]]),
            query_vector=engine.embedder.embed([query])[0],
            embed=embed,
            config=config or TemporalConfig(reference_time=NOW),
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


async def test_the_reference_defaults_to_the_latest_message_when_that_is_earlier(make_ctx):
    query = "Where did Ann go hiking yesterday?"
    out = await TemporalRetriever().retrieve(query, make_ctx(query, config=TemporalConfig()))
    # the conversation's latest turn is 2023-05-09 09:00, before now: its yesterday
    assert out.metadata["temporal"] == {
        "interval": "[2023-05-08T00:00:00, 2023-05-09T00:00:00)",
        "phrase": "yesterday",
        "reference_time": "2023-05-09T09:00:00",
        "reference": "latest message",
        "ran": "TEMPORAL",
        "mode": "interval",
    }
    given = await TemporalRetriever().retrieve(query, make_ctx(query))
    assert given.metadata["temporal"]["reference"] == "given"
    assert given.metadata["temporal"]["interval"].startswith("[2023-05-09")


async def test_empty_scope_gives_no_hits(make_ctx):
    out = await TemporalRetriever().retrieve("hiking in 2023", make_ctx("hiking", scope=[]))
    assert out.hits == []


async def test_no_time_falls_back_and_says_so(make_ctx):
    query = "What is broken in the office?"
    out = await TemporalRetriever().retrieve(query, make_ctx(query))
    assert "fallback" in out.details
    assert out.search_type == SearchType.GRAPH_COMPLETION
    temporal = out.metadata["temporal"]
    assert (temporal["interval"], temporal["ran"], temporal["mode"]) == (
        "none",
        "GRAPH_COMPLETION",
        "fallback",
    )
    assert "no time found" in temporal["fallback"]


async def test_recall_reports_the_fallback(engine):
    await engine.remember(Conversation(messages=[_turn(1, "The printer is broken.", 2)]))
    (entry,) = await engine.recall(
        "What is broken?", query_type=SearchType.TEMPORAL, only_context=True, verbose=True
    )
    assert entry.search_type != SearchType.TEMPORAL
    assert "fallback" in entry.metadata["retrieval"]
    # not only verbose calls are told: metadata["temporal"] names the fallback
    (plain,) = await engine.recall(
        "What is broken?", query_type=SearchType.TEMPORAL, only_context=True
    )
    assert plain.metadata["temporal"]["interval"] == "none"
    assert plain.metadata["temporal"]["ran"] == "GRAPH_COMPLETION"


async def test_recall_resolves_relative_phrases_against_a_given_reference_time(engine):
    await engine.remember(
        Conversation(
            messages=[
                Message(
                    id="m1",
                    speaker="Liam",
                    text="I told Priya about the new job.",
                    timestamp=datetime(2023, 3, 14, 10, 0),
                ),
                Message(
                    id="m2",
                    speaker="Liam",
                    text="I told Priya about the new flat.",
                    timestamp=datetime(2023, 4, 20, 10, 0),
                ),
            ]
        )
    )
    query = "What did Liam tell Priya last March?"
    (routed,) = await engine.recall(
        query, retriever_specific_config={"reference_time": "2023-05-10T12:00:00"}
    )
    assert routed.search_type == SearchType.TEMPORAL
    assert "temporal.relative" in routed.metadata["route"]["fired"]
    assert routed.metadata["temporal"]["interval"] == "[2023-03-01T00:00:00, 2023-04-01T00:00:00)"
    assert routed.metadata["temporal"]["reference"] == "given"
    assert routed.metadata["sources"][0]["message_ids"] == ["m1"]
    # without one, the conversation's latest message (2023-04-20) is the reference
    (default,) = await engine.recall(query, only_context=True)
    assert default.metadata["temporal"]["reference_time"] == "2023-04-20T10:00:00"
    assert default.metadata["temporal"]["interval"].startswith("[2023-03-01")
