"""The routed default's follow-up hop runs only when the first round says it is needed."""

from __future__ import annotations

from collections.abc import Hashable
from typing import cast

import pytest

from recall_engine import Document, SearchType
from recall_engine.core.hits import ChunkHit
from recall_engine.read.api import ReadAPI
from retrievers.graph_rounds import ROUND_K, Stop
from retrievers.graph_search import GraphResult
from retrievers.hop_gate import covered_share, gated, links_followed, list_shaped, skip_reason


def passage(text: str, item: str = "d1") -> ChunkHit:
    return ChunkHit(
        text=text, score=1.0, chunk_id=f"c-{item}", data_id=item, chunk_index=0, document_name=item
    )


class TitleLinks:
    """A read API that only answers ``titled_chunks``: a text -> the chunks of the
    items it names by title."""

    def __init__(self, links: dict[str, list[ChunkHit]]) -> None:
        self.links = links

    async def titled_chunks(self, text: str, k: int) -> list[ChunkHit]:
        return self.links.get(text, [])[:k]


def title_links(links: dict[str, list[ChunkHit]]) -> ReadAPI:
    return cast(ReadAPI, TitleLinks(links))


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


FILM = "Night Train is a film directed by Ann Lee, shot in Ulm."
DIRECTOR = passage("Ann Lee is a director born in Lyon.", "lee")
CITY = passage("Ulm is a city on the Danube.", "ulm")


async def test_links_followed_when_every_page_the_best_passage_names_is_held():
    read = title_links({FILM: [DIRECTOR, CITY]})
    held = GraphResult(hits=[passage(FILM, "film"), CITY, DIRECTOR])
    assert await links_followed(read, held)
    # a page it names is not held yet: the hop may still reach it
    assert not await links_followed(read, GraphResult(hits=[passage(FILM, "film"), CITY]))
    # names no page (a conversation's turn, an untitled note): nothing to tell
    assert not await links_followed(title_links({}), held)
    # its own page is no link
    own = title_links({FILM: [passage("more about the film", "film")]})
    assert not await links_followed(own, GraphResult(hits=[passage(FILM, "film")]))
    assert not await links_followed(read, GraphResult())
    # names more chunks than the first round's window holds: not every one can be held
    many = [passage(f"page {n}", f"p{n}") for n in range(ROUND_K + 1)]
    crowded = title_links({FILM: many})
    assert not await links_followed(crowded, GraphResult(hits=[passage(FILM, "film"), *many]))


async def test_gated_skips_the_hop_when_the_first_round_followed_the_links():
    async def follow_up(merged: GraphResult, used: set[Hashable]) -> str | Stop:
        return "next query"

    question = "Where was the director of Night Train born?"
    held = GraphResult(hits=[passage(FILM, "film"), DIRECTOR, CITY])
    read = title_links({FILM: [DIRECTOR, CITY]})
    skip = gated(question, follow_up, 0.7, read)
    assert await skip(held, set()) == Stop("hop_not_needed: linked")
    assert await gated(question, follow_up, 0.7)(held, set()) == "next query"  # no read
    missing = GraphResult(hits=[passage(FILM, "film"), CITY])
    assert await gated(question, follow_up, 0.7, read)(missing, set()) == "next query"


async def test_the_routed_default_skips_the_hop_when_the_first_round_followed_the_link(engine):
    await engine.remember(
        [
            Document(text="Night Train is a film directed by Ann Lee.", title="Night Train"),
            Document(text="Ann Lee grew up in Lyon.", title="Ann Lee"),
            Document(text="A river port on the Rhine with a busy harbour.", title="Duisburg"),
        ],
        dataset_name="films",
    )
    question = "Which city was the director of the film Night Train born in?"
    results = await engine.recall(question, only_context=True, verbose=True)
    retrieval = results[0].metadata["retrieval"]
    assert retrieval["stopped"] == "hop_not_needed: linked"
    assert len(retrieval["rounds"]) == 1
    one = await engine.recall(question, SearchType.GRAPH_COMPLETION, only_context=True)
    assert [r.text for r in results] == [r.text for r in one]  # the cost of one search
