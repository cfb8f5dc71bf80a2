"""BROAD: counts, totals and complete lists from every record, exact offline, with evidence."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import pytest

from recall_engine import Conversation, Message, RecallEngine
from recall_engine.core.records import Ask, RecordSet
from recall_engine.llm.answer_records import answer_value
from recall_engine.testing import FakeLLMServer
from retrievers.broad_query import read_question

TURNS = [
    ("Ann", "I adopted a cat named Luna last week!", datetime(2022, 3, 1)),
    ("Bob", "Nice, so you have two pets now?", datetime(2022, 3, 1, 0, 5)),
    ("Ann", "I got a puppy called Max in 2023.", datetime(2023, 4, 1)),
    ("Ann", "I ran the Lyon half marathon yesterday.", datetime(2023, 5, 1)),
    ("Ann", "I also ran the Paris 10k in June.", datetime(2023, 7, 1)),
    ("Ann", "Next year I want to run the Berlin marathon too.", datetime(2023, 9, 1)),
    ("Bob", "My dog Rex loves the park.", datetime(2023, 9, 2)),
    ("Ann", "I ran 12 km this morning.", datetime(2023, 10, 3)),
    ("Ann", "Another 8 km run today.", datetime(2023, 10, 4)),
    ("Ann", "My aunt gave me a parrot named Kiwi.", datetime(2024, 2, 1)),
    ("Ann", "Luna knocked over my vase again, silly cat Luna.", datetime(2024, 2, 2)),
    ("Ann", "Sadly Max passed away last week.", datetime(2024, 6, 1)),
]


async def _fill(engine: RecallEngine) -> None:
    messages = [
        Message(id=f"t{i}", speaker=s, text=text, timestamp=ts)
        for i, (s, text, ts) in enumerate(TURNS)
    ]
    await engine.remember(Conversation(messages=messages), dataset_name="chat")


@pytest.fixture
async def chat(tmp_path, hash_embedder, prebuilt) -> AsyncIterator[RecallEngine]:
    """A fresh copy per test of the chat (ingested once per session)."""
    engine = RecallEngine(prebuilt(_fill, tmp_path / "data"), embedder=hash_embedder)
    yield engine
    engine.close()


async def _records(engine: RecallEngine, question: str) -> tuple[RecordSet, str]:
    results = await engine.recall(question, query_type="BROAD", datasets=["chat"])
    assert len(results) == 1 and results[0].search_type == "BROAD"
    return RecordSet.model_validate(results[0].metadata["records"]), results[0].text


@pytest.mark.parametrize(
    ("question", "ask", "kind"),
    [
        ("How many pets does Ann have?", Ask.COUNT, "pet"),
        ("List all the cities Ann visited.", Ask.LIST, "city"),
        ("What are all the instruments Ann plays?", Ask.LIST, "instrument"),
        ("Which races has Ann run?", Ask.LIST, "race"),
        ("How many km did Ann run in total?", Ask.TOTAL, "km"),
        ("How much did Ann spend in total?", Ask.TOTAL, "money"),
        ("How many times did Ann go to the gym?", Ask.TIMES, ""),
        ("Which sport does Ann mention the most?", Ask.MOST, "sport"),
    ],
)
def test_the_question_is_read(question: str, ask: Ask, kind: str) -> None:
    read = read_question(question)
    assert read is not None and (read.ask, read.kind) == (ask, kind)
    assert "Ann" in read.subjects


def test_a_question_that_aggregates_nothing_is_not_read() -> None:
    assert read_question("Where was Ann born?") is None


async def test_every_pet_is_counted_once_with_its_evidence(chat: RecallEngine) -> None:
    records, text = await _records(chat, "How many pets has Ann had?")
    assert answer_value(records) == 3
    assert text.startswith("3 pets: Luna, Max and Kiwi.")
    luna = next(r for r in records.records if r.item == "Luna")
    assert luna.mentions == 2  # named again later: still one pet
    assert luna.source.message_ids == ["t0"] and "cat named Luna" in luna.sentence
    assert [r.time[:4] for r in records.records if r.time] == ["2022", "2023", "2024"]


async def test_a_pet_that_died_is_not_counted_now(chat: RecallEngine) -> None:
    records, text = await _records(chat, "How many pets does Ann have now?")
    assert answer_value(records) == 2 and text.startswith("2 pets: Luna and Kiwi.")
    max_ = next(r for r in records.records if r.item == "Max")
    assert not max_.current and "passed away" in (max_.ended_by or "")


async def test_plans_and_the_friends_items_are_left_out(chat: RecallEngine) -> None:
    races, _ = await _records(chat, "Which races has Ann run?")
    assert answer_value(races) == ["Lyon half marathon", "Paris 10k"]  # not Berlin: a plan
    pets, _ = await _records(chat, "List all the pets Ann has.")
    assert "Rex" not in answer_value(pets)  # Bob's dog


async def test_a_total_sums_every_amount(chat: RecallEngine) -> None:
    records, text = await _records(chat, "How many km did Ann run in total?")
    assert answer_value(records) == 20 and text.startswith("20 km in total (12 km + 8 km)")


async def test_the_answer_cites_every_item(chat: RecallEngine) -> None:
    results = await chat.recall("List all the pets Ann has.", query_type="BROAD", datasets=["chat"])
    evidence = results[0].metadata["answer_evidence"]
    assert [e["span"] for e in evidence] == ["Luna", "Max", "Kiwi"]
    assert all(e["chunk_id"] for e in evidence)
    assert results[0].metadata["answer_mode"] == "extractive"


async def test_only_context_gives_the_full_record_list(chat: RecallEngine) -> None:
    results = await chat.recall(
        "How many pets has Ann had?", query_type="BROAD", datasets=["chat"], only_context=True
    )
    assert len(results) == 1
    text = results[0].text
    assert "Records of kind 'pet' about Ann (3, in time order)" in text
    assert text.index("Luna") < text.index("Max") < text.index("Kiwi")
    assert {s["message_ids"][0] for s in results[0].metadata["sources"]} >= {"t0", "t2", "t9"}


async def test_no_aggregation_runs_the_routed_default_and_says_so(chat: RecallEngine) -> None:
    results = await chat.recall("Where did Ann run?", query_type="BROAD", datasets=["chat"])
    assert results and results[0].search_type == "GRAPH_COMPLETION"
    assert "asks for no count" in results[0].metadata["broad"]["fallback"]


async def test_the_router_sends_counts_to_broad(chat: RecallEngine) -> None:
    results = await chat.recall("How many pets has Ann had?", datasets=["chat"])
    assert results[0].metadata["route"]["search_type"] == "BROAD"
    assert results[0].text.startswith("3 pets")


@pytest.fixture
def fake_llm_server():
    with FakeLLMServer() as server:
        yield server


async def test_with_an_llm_the_whole_history_goes_in_one_prompt(
    tmp_path, hash_embedder, fake_llm_server: FakeLLMServer
) -> None:
    engine = RecallEngine(
        tmp_path / "data",
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=fake_llm_server.base_url,
        llm_api_key="test",
    )
    try:
        messages = [
            Message(id=f"t{i}", speaker=s, text=text, timestamp=ts)
            for i, (s, text, ts) in enumerate(TURNS)
        ]
        await engine.remember(Conversation(messages=messages), dataset_name="chat")
        fake_llm_server.enqueue("Ann has had 3 pets.")
        results = await engine.recall(
            "How many pets has Ann had?", query_type="BROAD", datasets=["chat"]
        )
        assert results[0].text == "Ann has had 3 pets."
        assert results[0].metadata["answer_mode"] == "llm"
        assert results[0].metadata["records"]["how"].startswith("whole scope in one prompt")
        prompt = fake_llm_server.requests[-1].message("user") or ""
        assert "Every passage in scope, in time order" in prompt
        assert "My aunt gave me a parrot named Kiwi." in prompt
        assert "Records of kind 'pet'" in prompt
        # whole_scope_words bounds that prompt: below the history's size, the records go
        fake_llm_server.enqueue("Ann has had 3 pets.")
        results = await engine.recall(
            "How many pets has Ann had?",
            query_type="BROAD",
            datasets=["chat"],
            retriever_specific_config={"whole_scope_words": 5},
        )
        assert results[0].metadata["records"]["how"].startswith("records (")
        prompt = fake_llm_server.requests[-1].message("user") or ""
        assert "Every passage in scope" not in prompt and "Records of kind 'pet'" in prompt
    finally:
        engine.close()
