"""The routed default hands over to GRAPH_COMPLETION with one follow-up hop when
the first round says it is needed, says so in metadata["route"], and an explicit
query_type runs one search."""

from __future__ import annotations

import pytest

from recall_engine import SearchType
from recall_engine.core.errors import InvalidInputError
from recall_engine.pipeline.route import HANDOVER, handover
from retrievers.graph_completion import HOP_MODE, GraphCompletionRetriever
from router import route
from tests.retrievers.graph_fixtures import make_ctx, remember_docs

QUERY = "Where was the collaborator of Ada Lovelace born?"  # the router's default
# The best passage ("Ada Lovelace worked with Charles Babbage ...") leaves
# "collaborator" and "born" uncovered: a bridge, so the hop runs.
COVERED = "Who worked with Charles Babbage?"  # the best passage holds every word
HANDED_OVER = {"follow_up_hops": 1, "hop_coverage": 0.7}


async def test_the_routed_default_takes_one_follow_up_hop_and_says_so(engine):
    await remember_docs(engine)
    results = await engine.recall(QUERY, only_context=True, verbose=True)
    assert results[0].search_type == SearchType.GRAPH_COMPLETION
    routed = results[0].metadata["route"]
    assert routed["default"] is True
    assert routed["handover"]["config"] == HANDED_OVER
    assert "follow-up hop" in routed["handover"]["reason"]
    rounds = results[0].metadata["retrieval"]["rounds"]
    assert len(rounds) == 2 and rounds[0]["query"] == QUERY
    assert rounds[1]["query"].startswith(QUERY + " ")  # the question + its best evidence
    assert results[0].metadata["retrieval"]["mode"] == HOP_MODE


@pytest.mark.parametrize(
    ("question", "reason"),
    [(COVERED, "covered"), ("What cities has Ada Lovelace visited?", "list")],
)
async def test_the_routed_default_skips_the_hop_the_first_round_does_not_need(
    engine, question, reason
):
    await remember_docs(engine)
    results = await engine.recall(question, only_context=True, verbose=True)
    assert results[0].metadata["route"]["handover"]["config"] == HANDED_OVER
    retrieval = results[0].metadata["retrieval"]
    assert len(retrieval["rounds"]) == 1
    assert retrieval["stopped"] == f"hop_not_needed: {reason}"
    one = await engine.recall(question, SearchType.GRAPH_COMPLETION, only_context=True)
    assert [r.text for r in results] == [r.text for r in one]  # the cost of one search


async def test_an_explicit_graph_completion_runs_one_search(engine):
    await remember_docs(engine)
    results = await engine.recall(
        QUERY, SearchType.GRAPH_COMPLETION, only_context=True, verbose=True
    )
    assert "handover" not in results[0].metadata["route"]
    assert "rounds" not in results[0].metadata["retrieval"]


async def test_the_callers_config_wins_over_the_handover(engine):
    await remember_docs(engine)
    results = await engine.recall(
        QUERY, only_context=True, verbose=True, retriever_specific_config={"follow_up_hops": 0}
    )
    assert "rounds" not in results[0].metadata["retrieval"]


async def test_offline_feeling_lucky_runs_the_routed_default_as_routing_does(engine):
    await remember_docs(engine)
    lucky = await engine.recall(QUERY, SearchType.FEELING_LUCKY, only_context=True, verbose=True)
    routed = await engine.recall(QUERY, only_context=True)
    assert [r.text for r in lucky] == [r.text for r in routed]
    assert len(lucky[0].metadata["retrieval"]["rounds"]) == 2


def test_only_the_routers_own_choice_is_handed_over():
    decision = route(QUERY)
    assert handover(SearchType.GRAPH_COMPLETION, None, decision) == HANDED_OVER
    assert handover(SearchType.GRAPH_COMPLETION, SearchType.GRAPH_COMPLETION, decision) is None
    assert handover(SearchType.GRAPH_COMPLETION, None, None) is None  # auto_route=False
    assert handover(SearchType.TEMPORAL, None, route("When did Ann move?")) is None
    assert set(HANDOVER) == {SearchType.GRAPH_COMPLETION, SearchType.GRAPH_COMPLETION_COT}
    why = route("Why did Ada Lovelace stop working with Charles Babbage?")
    assert handover(SearchType.GRAPH_COMPLETION_COT, None, why) == {"max_rounds": 2}


async def test_follow_up_hops_merge_rounds_with_the_first_search_leading(engine):
    await remember_docs(engine)
    one = await GraphCompletionRetriever().retrieve(
        QUERY, await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=10)
    )
    hop = await GraphCompletionRetriever().retrieve(
        QUERY,
        await make_ctx(engine, GraphCompletionRetriever, QUERY, top_k=10, follow_up_hops=1),
    )
    assert hop.hits[0].text == one.hits[0].text  # the first round's best stays first
    assert len(hop.details["rounds"]) == 2
    assert {h.text for h in one.hits} <= {h.text for h in hop.hits} | {
        h.text for h in one.hits[len(hop.hits) :]
    }


async def test_follow_up_hops_out_of_range_are_refused(engine):
    await remember_docs(engine)
    with pytest.raises(InvalidInputError, match="follow_up_hops"):
        await engine.recall(
            QUERY, SearchType.GRAPH_COMPLETION, retriever_specific_config={"follow_up_hops": 9}
        )


WHY = "Why did Ada Lovelace stop working with Charles Babbage?"  # the router: COT
CHAIN = [  # each answer raises the next question, among notes that answer none
    "Ada Lovelace stopped working with Charles Babbage after the Analytical Engine lost its "
    "funding.",
    "The Analytical Engine lost its funding when the British government refused Babbage more "
    "money.",
    "The British government refused Babbage more money because the Difference Engine had "
    "cost too much.",
    "The Difference Engine had cost seventeen thousand pounds by 1842.",
] + [
    f"Note {i}: the {place} committee met in room {i} to discuss the {topic} report."
    for i, (place, topic) in enumerate(
        zip(
            ["garden", "budget", "river", "school"] * 16,
            ["annual", "water", "energy"] * 22,
            strict=False,
        )
    )
]


async def test_the_routed_default_runs_chain_of_thought_in_two_rounds(engine):
    await engine.remember(CHAIN, dataset_name="history")
    results = await engine.recall(WHY, only_context=True, verbose=True)
    assert results[0].search_type == SearchType.GRAPH_COMPLETION_COT
    routed = results[0].metadata["route"]
    assert routed["handover"]["config"] == {"max_rounds": 2}
    assert "two rounds" in routed["handover"]["reason"]
    retrieval = results[0].metadata["retrieval"]
    assert len(retrieval["rounds"]) == 2 and retrieval["stopped"] == "max_rounds"
    explicit = await engine.recall(
        WHY, SearchType.GRAPH_COMPLETION_COT, only_context=True, verbose=True
    )
    assert "handover" not in explicit[0].metadata["route"]
    assert len(explicit[0].metadata["retrieval"]["rounds"]) > 2  # as many as it needs
