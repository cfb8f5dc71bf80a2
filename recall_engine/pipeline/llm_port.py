"""The narrow LLM interface retrievers get: render a prompt file, call the model."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from recall_engine.llm.client import LLMClient
from recall_engine.llm.config import LLMConfig
from recall_engine.llm.structured import complete_structured, schema_instruction
from recall_engine.llm.usage import LLMUsage
from recall_engine.prompts import render_prompt

ModelT = TypeVar("ModelT", bound=BaseModel)


class PromptLLM:
    """Implements ``retrievers.base.LLM`` over the one litellm client; adds up usage."""

    def __init__(self, config: LLMConfig) -> None:
        self._client = LLMClient(config)
        self.usage: list[LLMUsage] = []

    async def complete(self, prompt: str, /, **variables: Any) -> str:
        messages = render_prompt(prompt, **variables).messages()
        completion = await self._client.complete(messages)
        self.usage.append(completion.usage)
        return completion.text.strip()

    async def complete_json(self, prompt: str, model: type[ModelT], /, **variables: Any) -> ModelT:
        messages = render_prompt(prompt, **variables).messages()
        messages[-1]["content"] += "\n\n" + schema_instruction(model)
        obj, usage = await complete_structured(self._client, messages, model)
        self.usage.append(usage)
        return obj  # type: ignore[return-value]
