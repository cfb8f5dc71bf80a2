"""Structured output: parse, validate, retry once with the error, then give up."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from recall_engine.core.errors import LLMResponseError
from recall_engine.llm import LLMClient, LLMConfig
from recall_engine.llm.structured import complete_structured, extract_json, schema_instruction
from recall_engine.testing import FakeLLMServer

pytestmark = pytest.mark.filterwarnings(
    "ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"
)


class Person(BaseModel):
    name: str
    born: int


def messages() -> list[dict[str, str]]:
    return [{"role": "user", "content": "Who? " + schema_instruction(Person)}]


async def test_valid_reply_is_parsed(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue('{"name": "Einstein", "born": 1879}')
    obj, usage = await complete_structured(LLMClient(llm_config), messages(), Person)
    assert obj == Person(name="Einstein", born=1879)
    assert usage.calls == 1
    assert len(server.requests) == 1


async def test_invalid_then_valid_retries_once_with_the_error(
    server: FakeLLMServer, llm_config: LLMConfig
):
    server.enqueue('{"name": "Einstein", "born": "long ago"}', '{"name": "Einstein", "born": 1879}')
    obj, usage = await complete_structured(LLMClient(llm_config), messages(), Person)
    assert obj.born == 1879  # type: ignore[attr-defined]
    assert usage.calls == 2
    retry = server.requests[1].messages
    assert retry[-2] == {"role": "assistant", "content": '{"name": "Einstein", "born": "long ago"}'}
    assert retry[-1]["role"] == "user"
    assert "born" in retry[-1]["content"] and "integer" in retry[-1]["content"]


async def test_invalid_twice_raises_response_error(server: FakeLLMServer, llm_config: LLMConfig):
    server.enqueue("I think it was Einstein.", "Still not JSON, sorry.")
    with pytest.raises(LLMResponseError, match="Person after a retry"):
        await complete_structured(LLMClient(llm_config), messages(), Person)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Sure! Here it is: {"a": 1} Hope that helps.',
    ],
)
def test_extract_json_tolerates_fences_and_chatter(reply: str):
    assert extract_json(reply) == '{"a": 1}'
