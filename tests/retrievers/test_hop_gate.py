"""The routed default's follow-up hop runs only when the first round says it is needed."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from recall_engine.core.hits import ChunkHit
from retrievers.graph_rounds import Stop
from retrievers.graph_search import GraphResult
from retrievers.hop_gate import covered_share, gated, list_shaped, skip_reason


def passage(text: str) -> ChunkHit:
    return ChunkHit(
        text=text, score=1.0, chunk_id="c1", data_id="d1", chunk_index=0, document_name="d"
    )


def first_round(*texts: str) -> GraphResult:
    hits = [passage(t) for t in texts]
    return GraphResult(hits=list(hits), passages=list(hits))


@pytest.mark.parametrize(
    "question",
    [
        "What activities does Ann partake in?",
        "Which cities has Ann visited?",
        "What books has Ann read?",
        "What kinds of music does Ann like?",
        "What has Ann painted?",
        "Where has Ann camped?",
        "What are Ann's hobbies?",
        "What are some changes Ann has faced?",
    ],
)
def test_questions_that_ask_for_every_item_read_as_lists(question):
    assert list_shaped(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Ann paint last week?",
        "Where did Ann move from?",
        "What is Ann's favourite book?",
        "Who worked with Charles Babbage?",
        "What does Ann do for a living?",
        "Where has Ann been living since May?",
    ],
)
def test_questions_about_one_thing_do_not(question):
    assert not list_shaped(question)


def test_covered_share_counts_the_questions_stemmed_content_words():
    assert covered_share("Who painted the lake sunrise?", "Ann paints lakes at sunrise.") == 1.0
    assert covered_share(
        "Where was the designer of the engine born?", "He designed an engine."
    ) == (pytest.approx(2 / 3))
    assert covered_share("Who is it?", "anything") == 1.0  # no content word: nothing to bridge


def test_the_hop_is_skipped_for_a_covered_question_or_a_list_and_run_for_a_bridge():
    covered = first_round("Ada Lovelace worked with Charles Babbage in London.")
    assert skip_reason("Who worked with Charles Babbage?", covered, 0.7) == "covered"
    bridge = "Where was the collaborator of Ada Lovelace born?"
    assert skip_reason(bridge, covered, 0.7) is None  # "collaborator", "born" not in it
    assert skip_reason("What cities has Ada visited?", covered, 0.7) == "list"
    assert skip_reason(bridge, GraphResult(), 0.7) is None  # no passage: nothing covers it


async def test_gated_stops_before_the_hop_only_on_its_first_call():
    calls: list[int] = []

    async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | Stop:
        calls.append(len(merged.hits))
        return "next query"

    covered = first_round("Ada Lovelace worked with Charles Babbage in London.")
    skip = gated("Who worked with Charles Babbage?", follow_up, 0.7)
    assert await skip(covered, set()) == Stop("hop_not_needed: covered")
    assert calls == []
    hop = gated("Where was the collaborator of Ada Lovelace born?", follow_up, 0.7)
    assert await hop(covered, set()) == "next query"
    assert await hop(covered, set()) == "next query"
    assert calls == [1, 1]
