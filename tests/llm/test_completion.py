"""generate_answer(): LLM answers through the fake server, and the offline extractive answer."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, SecretStr

from recall_engine.config import RecallConfig
from recall_engine.core.errors import InvalidInputError, PromptNotFoundError, PromptRenderError
from recall_engine.core.hits import ChunkHit
from recall_engine.core.models import SourceRef
from recall_engine.llm import LLMConfig
from recall_engine.llm.completion import (
    extractive_answer,
    generate_answer,
    resolve_llm_config,
    resolve_response_model,
)
from recall_engine.llm.extractive import NO_CONTEXT_TEXT, NOT_IN_CONTEXT_TEXT
from recall_engine.testing import FakeLLMServer

pytestmark = pytest.mark.filterwarnings(
    "ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"
)


def item(text: str, n: int, score: float = 1.0) -> ChunkHit:
    ref = SourceRef(
        data_id=f"d{n}",
        chunk_id=f"c{n}",
        chunk_index=0,
        document_name=f"doc{n}.txt",
        dataset_id="ds",
        dataset_name="physics",
    )
    return ChunkHit(
        text=text,
        score=score,
        sources=(ref,),
        chunk_id=ref.chunk_id,
        data_id=ref.data_id,
        chunk_index=0,
        document_name=ref.document_name,
    )


ITEMS = [
    item("Einstein was born in Ulm. He later moved to Munich with his family.", 1),
    item("Marie Curie was born in Warsaw. She won two Nobel prizes.", 2),
    item("Ulm is a city on the Danube in Baden-Wuerttemberg.", 3),
]


class Birthplace(BaseModel):
    person: str
    city: str


# --- with an LLM -----------------------------------------------------------------------


async def test_llm_answer_uses_the_grounded_prompt(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue("Einstein was born in Ulm.")
    answer = await generate_answer(
        "Where was Einstein born?", ITEMS, config=RecallConfig(), llm_config=llm_config
    )
    assert answer.answer_mode == "llm"
    assert answer.text == "Einstein was born in Ulm."
    assert answer.structured is None
    assert [s.chunk_id for s in answer.sources] == ["c1", "c2", "c3"]
    assert answer.usage["model"] == "openai/fake-model"
    assert answer.usage["completion_tokens"] == 5
    assert answer.usage["prompt_tokens"] > 20

    request = server.last_request
    system, user = request.message("system"), request.message("user")
    assert system is not None and "does not contain the answer" in system
    assert user is not None and "Question: Where was Einstein born?" in user
    assert "[1] (from doc1.txt) Einstein was born in Ulm." in user
    assert user.index("[1]") < user.index("[2]") < user.index("[3]")
    assert "Previous conversation" not in user


async def test_llm_is_taken_from_recall_config(server: FakeLLMServer):
    config = RecallConfig(
        llm_model="openai/fake-model", llm_api_base=server.base_url, llm_api_key=SecretStr("test")
    )
    resolved = resolve_llm_config(config)
    assert resolved is not None and resolved.api_base == server.base_url
    answer = await generate_answer("Where was Einstein born?", ITEMS, config=config)
    assert answer.answer_mode == "llm"
    assert len(server.requests) == 1


async def test_system_prompt_overrides_the_system_message(
    server: FakeLLMServer, llm_config: LLMConfig
):
    await generate_answer(
        "Where?", ITEMS, config=RecallConfig(), llm_config=llm_config, system_prompt="Be brief."
    )
    assert server.last_request.message("system") == "Be brief."
    assert "Question: Where?" in (server.last_request.message("user") or "")


async def test_system_prompt_path_overrides_the_system_message(
    server: FakeLLMServer, llm_config: LLMConfig, tmp_path
):
    path = tmp_path / "system.txt"
    path.write_text("Answer like a pirate, and cost $5.\n", encoding="utf-8")
    await generate_answer(
        "Where?", ITEMS, config=RecallConfig(), llm_config=llm_config, system_prompt_path=path
    )
    assert server.last_request.message("system") == "Answer like a pirate, and cost $5."


async def test_both_system_prompt_arguments_are_refused(llm_config: LLMConfig):
    with pytest.raises(InvalidInputError, match="not both"):
        await generate_answer(
            "q", ITEMS, config=RecallConfig(), system_prompt="a", system_prompt_path="b.txt"
        )


async def test_missing_system_prompt_path_raises(llm_config: LLMConfig, tmp_path):
    with pytest.raises(PromptNotFoundError):
        await generate_answer(
            "q", ITEMS, config=RecallConfig(), system_prompt_path=tmp_path / "missing.txt"
        )


async def test_session_history_and_graph_prompt(server: FakeLLMServer, llm_config: LLMConfig):
    await generate_answer(
        "And where did he move?",
        ITEMS,
        config=RecallConfig(),
        llm_config=llm_config,
        prompt_name="answer_from_graph_context",
        session_history="Q: Where was Einstein born?\nA: Ulm.",
    )
    user = server.last_request.message("user") or ""
    assert user.startswith("Previous conversation:\nQ: Where was Einstein born?\nA: Ulm.")
    assert "Knowledge graph excerpt" in user


async def test_prompt_with_other_variables_is_refused(llm_config: LLMConfig):
    with pytest.raises(PromptRenderError):
        await generate_answer(
            "q", ITEMS, config=RecallConfig(), llm_config=llm_config, prompt_name="decomposition"
        )


async def test_structured_answer(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue('{"person": "Albert Einstein", "city": "Ulm"}')
    answer = await generate_answer(
        "Where was Einstein born?",
        ITEMS,
        config=RecallConfig(),
        llm_config=llm_config,
        response_model=Birthplace,
    )
    assert answer.structured == {"person": "Albert Einstein", "city": "Ulm"}
    assert json.loads(answer.text) == answer.structured
    assert answer.answer_mode == "llm"
    request = server.last_request
    assert request.json["response_format"]["type"] == "json_schema"
    assert request.json["response_format"]["json_schema"]["schema"]["title"] == "Birthplace"
    assert '"city"' in (request.message("user") or "")  # the schema is also in the prompt


async def test_structured_instruction_survives_a_custom_system_prompt(
    server: FakeLLMServer, llm_config: LLMConfig
):
    server.enqueue('{"person": "Einstein", "city": "Ulm"}')
    await generate_answer(
        "q",
        ITEMS,
        config=RecallConfig(),
        llm_config=llm_config,
        system_prompt="Be brief.",
        response_model=Birthplace,
    )
    assert "JSON schema" in (server.last_request.message("user") or "")


# --- response_model resolution -----------------------------------------------------------


class Other(BaseModel):
    x: int


def test_resolve_response_model():
    assert resolve_response_model(None, None) is None
    assert resolve_response_model(Birthplace, None) is Birthplace
    assert resolve_response_model(None, {"response_model": Birthplace}) is Birthplace
    assert resolve_response_model(Birthplace, {"response_model": Birthplace}) is Birthplace
    with pytest.raises(InvalidInputError, match=r"Birthplace.*Other.*disagree"):
        resolve_response_model(Birthplace, {"response_model": Other})
    with pytest.raises(ValueError, match="pydantic BaseModel subclass"):
        resolve_response_model(None, {"response_model": dict})


# --- without an LLM ---------------------------------------------------------------------


async def test_offline_answer_is_extractive_with_sources(offline_config: RecallConfig):
    answer = await generate_answer("Where was Einstein born?", ITEMS, config=offline_config)
    assert answer.answer_mode == "extractive"
    assert answer.text == "Ulm"  # a "where" question is answered by the place
    assert answer.evidence[0].text == "Einstein was born in Ulm."
    assert "Marie Curie" not in answer.text
    assert answer.sources[0].chunk_id == "c1"
    assert answer.usage["model"] is None and answer.usage["total_tokens"] == 0


def test_extractive_answer_prefers_rare_terms_and_breaks_ties_by_rank():
    items = [
        item("Paris is in France. The Danube flows through Vienna.", 1),
        item("The Danube flows through Vienna.", 2),
        item("Budapest lies on the Danube too.", 3),
    ]
    answer = extractive_answer("Which city does the Danube flow through?", items)
    # "flow" is rarer than "Danube": the Budapest sentence scores under the Vienna one.
    assert answer.text == "Vienna"
    assert answer.evidence[0].text == "The Danube flows through Vienna."
    assert [s.chunk_id for s in answer.sources] == ["c1"]  # the better ranked copy


def test_extractive_answer_is_deterministic_and_short():
    many = [item(f"Fact {n} about Ulm and Einstein. Unrelated {n}.", n) for n in range(20)]
    first = extractive_answer("Einstein Ulm", many)
    assert first == extractive_answer("Einstein Ulm", many).model_copy(
        update={"usage": first.usage}
    )
    assert first.text.count("Fact") == 2  # a description: the best sentence and one more
    assert [s.chunk_id for s in first.sources] == ["c0", "c1"]


def test_extractive_answer_matches_word_forms():
    items = [item("She was running the marathon in Boston.", 1), item("Nothing here.", 2)]
    answer = extractive_answer("Who runs marathons?", items)
    assert answer.text == "She was running the marathon in Boston."


def test_extractive_answer_says_when_the_context_has_no_answer():
    answer = extractive_answer("What is the capital of Peru?", ITEMS)
    assert answer.text == NOT_IN_CONTEXT_TEXT
    assert answer.sources == []
    assert extractive_answer("Where was Einstein born?", []).text == NO_CONTEXT_TEXT
    assert extractive_answer("Who is he?", ITEMS).text == NOT_IN_CONTEXT_TEXT


async def test_response_model_without_llm_is_refused(offline_config: RecallConfig):
    with pytest.raises(InvalidInputError, match="needs an LLM"):
        await generate_answer("q", ITEMS, config=offline_config, response_model=Birthplace)


async def test_response_model_error_names_a_way_to_configure_an_llm_that_works(
    offline_config: RecallConfig, tmp_path
):
    from recall_engine import RecallEngine

    with pytest.raises(InvalidInputError) as caught:
        await generate_answer("q", ITEMS, config=offline_config, response_model=Birthplace)
    message = str(caught.value)
    assert "llm_config=" not in message  # recall() has no such keyword
    assert "LLM_MODEL" in message and "RecallEngine(llm_model=...)" in message
    engine = RecallEngine(tmp_path / "d", llm_model="openai/fake-model")  # what it suggests
    assert engine.config.llm_configured
    engine.close()
