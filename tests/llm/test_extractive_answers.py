"""Offline answers that answer: by answer type, one hop through a named thing, summaries,
provenance on every sentence, never another dataset's look-alike, abstention."""

from __future__ import annotations

import pytest

from recall_engine.config import RecallConfig
from recall_engine.core.hits import AnyHit, ChunkHit
from recall_engine.llm.answer_types import ANSWER_TYPE_RULES, AnswerType, answer_type
from recall_engine.llm.completion import (
    ABSTAIN_TEXT,
    abstained_answer,
    extractive_answer,
    generate_answer,
    offline_answer,
)
from recall_engine.llm.extractive import split_sentences
from recall_engine.testing import FakeLLMServer

STANDUP = "[2024-03-04 09:31] Charles: The Difference Engine build is blocked on ERR-4012 again."
HANDBOOK = (
    "# Team handbook Dr. Ada Lovelace leads the analytics team at Northwind Labs in London. "
    "She joined Northwind Labs in March 2021. Incidents are tracked with ids such as ERR-4012. "
    "ERR-4012 was a database outage on 2 June 2023 that lasted forty minutes; the fix was to "
    "rotate the connection pool."
)
OTHER_INCIDENT = "INC-77: the Zephyr cache outage was caused by a full disk on the cache host."
POSTMORTEM = (
    "# Falcon postmortem\n\nOn 3 May 2024 the Falcon payment service was down for two hours. "
    "The outage started when a config change disabled the retry queue. Customers could not "
    "check out during the window. The on-call engineer rolled the change back at 14:10 and "
    "traffic recovered. Action items: add a canary for config changes and alert on queue depth."
)
QUESTION = "What caused the outage that blocked the Difference Engine build?"


def chunk(n: int, text: str, *, dataset: str = "ds1", data: str | None = None, **kw) -> ChunkHit:
    return ChunkHit(
        score=1.0 / (n + 1),
        chunk_id=f"c{n}",
        data_id=data or f"d{n}",
        chunk_index=kw.pop("chunk_index", 0),
        text=text,
        document_name=f"doc{n}",
        dataset_id=dataset,
        dataset_name=dataset,
        **kw,
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where does Grace live?", AnswerType.PLACE),
        ("Which city did she move to?", AnswerType.PLACE),
        ("When did Ada join Northwind Labs?", AnswerType.TIME),
        ("What year did the project ship?", AnswerType.TIME),
        ("Who leads the analytics team?", AnswerType.PERSON),
        ("How many people came?", AnswerType.NUMBER),
        ("Why did the build fail?", AnswerType.REASON),
        (QUESTION, AnswerType.REASON),
        ("What are some of her hobbies?", AnswerType.LIST),
        ("Summarize the Falcon postmortem.", AnswerType.SUMMARY),
        ("Give me an overview of the launch.", AnswerType.SUMMARY),
        ("Did the outage last long?", AnswerType.YES_NO),
        ("What does Grace prefer to drink?", AnswerType.DESCRIPTION),
    ],
)
def test_answer_type_from_the_wh_word_and_head(question, expected):
    assert answer_type(question) is expected


def test_answer_type_rules_are_data_with_unique_ids():
    ids = [rule.id for rule in ANSWER_TYPE_RULES]
    assert len(ids) == len(set(ids))


def test_where_does_grace_live_is_lisbon_not_manchester():
    items = [
        chunk(0, "Alan Turing, who lives in Manchester, likes chess."),
        chunk(1, "Grace lives in Lisbon."),
        chunk(2, "Grace likes tea."),
    ]
    answer = extractive_answer("Where does Grace live?", items)
    assert answer.text == "Lisbon"
    assert answer.answer_type == "place"
    (sentence,) = answer.evidence
    assert (sentence.text, sentence.data_id, sentence.chunk_id) == (
        "Grace lives in Lisbon.",
        "d1",
        "c1",
    )


def test_a_time_question_resolves_the_sentence_date_against_the_turn():
    items = [chunk(0, "[2023-05-08 13:56] Ann: I went to the support group yesterday.",
                   speaker="Ann", timestamp="2023-05-08T13:56:00")]  # fmt: skip
    assert extractive_answer("When did Ann go to the support group?", items).text == "7 May 2023"


def test_the_cause_is_one_hop_away_through_the_named_incident():
    items = [chunk(0, STANDUP, speaker="Charles", timestamp="2024-03-04T09:31:00"),
             chunk(1, HANDBOOK)]  # fmt: skip
    answer = extractive_answer(QUESTION, items)
    assert "database outage" in answer.text and "connection pool" in answer.text
    roles = [(e.role, e.chunk_id) for e in answer.evidence]
    assert roles == [("answer", "c1"), ("bridge", "c0")]


class _Graph:
    """A ContextExpander double: the store holds the handbook chunk for ERR-4012."""

    def __init__(self, store: dict[str, list[AnyHit]]) -> None:
        self.store, self.asked = store, []

    async def mentioning(self, names):
        self.asked.append(list(names))
        return [hit for name in names for hit in self.store.get(name, [])]

    async def item_chunks(self, item):
        return self.store.get(item.data_id, [])


async def test_the_hop_reads_the_named_entity_facts_from_the_store():
    graph = _Graph({"ERR-4012": [chunk(5, HANDBOOK, data="handbook")]})
    items = [chunk(0, STANDUP, speaker="Charles"), chunk(1, "Grace will pair on it after lunch.")]
    answer = await offline_answer(QUESTION, items, expand=graph)
    assert graph.asked == [["ERR-4012"]]
    assert answer.text.startswith("ERR-4012 was a database outage")
    assert answer.evidence[0].data_id == "handbook"
    assert answer.evidence[1].text == "The Difference Engine build is blocked on ERR-4012 again."


def test_an_answer_never_mixes_in_another_datasets_look_alike():
    items = [chunk(0, STANDUP, speaker="Charles"), chunk(1, OTHER_INCIDENT, dataset="ds2"),
             chunk(2, HANDBOOK)]  # fmt: skip
    answer = extractive_answer(QUESTION, items)
    assert "Zephyr" not in answer.text
    assert {e.dataset_id for e in answer.evidence} == {"ds1"}


async def test_summarize_returns_a_summary_of_the_named_item():
    parts = [chunk(3, POSTMORTEM, data="pm")]
    graph = _Graph({"pm": parts})
    items = [chunk(0, "Falcons are fast birds.", dataset="ds2"), *parts]
    answer = await offline_answer("Summarize the Falcon postmortem.", items, expand=graph)
    assert answer.answer_type == "summary"
    assert answer.text.startswith("On 3 May 2024 the Falcon payment service was down")
    assert "retry queue" in answer.text and "birds" not in answer.text
    assert "#" not in answer.text
    assert {(e.role, e.data_id) for e in answer.evidence} == {("summary", "pm")}
    assert 2 <= len(answer.evidence) <= 4


def test_sentences_skip_collapsed_headings_and_keep_titles_with_dots():
    assert split_sentences(HANDBOOK)[0].startswith("Dr. Ada Lovelace leads")
    assert split_sentences("# Notes on Grace Grace Hopper prefers tea.") == [
        "Grace Hopper prefers tea."
    ]


async def test_low_coverage_abstains_offline_and_says_so():
    items = [chunk(0, "Grace lives in Lisbon.")]
    answer = await generate_answer("Where does Grace live?", items, config=RecallConfig(),
                                   coverage=0.21, coverage_low=True)  # fmt: skip
    assert answer.abstained and answer.text == ABSTAIN_TEXT.format(coverage=0.21)
    assert "0.21" in answer.text and answer.evidence == []
    assert abstained_answer("Where?", 0.1).answer_mode == "extractive"


async def test_low_coverage_is_told_to_the_llm(server: FakeLLMServer, llm_config):
    items = [chunk(0, "Grace lives in Lisbon.")]
    for coverage, low in ((0.2, True), (0.9, False)):
        server.enqueue("Lisbon.")
        await generate_answer("Where?", items, config=RecallConfig(), llm_config=llm_config,
                              coverage=coverage, coverage_low=low)  # fmt: skip
    low_prompt, high_prompt = (r.message("user") or "" for r in server.requests)
    assert "little support for this question (coverage 0.20 of 1)" in low_prompt
    assert "little support" not in high_prompt
