"""Structured output: a reply that validates against a caller's pydantic model.

The schema travels twice: as litellm's ``response_format`` (providers that
support JSON-schema output enforce it) and as an instruction in the prompt
(for those that do not; ``drop_params`` removes the unsupported parameter).
We always parse and validate ourselves, retry once with the validation error
appended, then give up with ``LLMResponseError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from recall_engine.core.errors import InvalidInputError, LLMResponseError
from recall_engine.llm.client import LLMClient, Message
from recall_engine.llm.usage import LLMUsage
from recall_engine.prompts import render_prompt

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def response_format_for(model: type[BaseModel]) -> dict[str, object]:
    """litellm/OpenAI ``response_format`` asking for JSON that matches ``model``."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "response"
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": model.model_json_schema(), "strict": False},
    }


def schema_instruction(model: type[BaseModel]) -> str:
    """The prompt text that asks for JSON matching ``model``'s schema."""
    schema = json.dumps(model.model_json_schema(), ensure_ascii=False)
    return render_prompt("structured_output", schema=schema).user


def extract_json(text: str) -> str:
    """The JSON object in a reply, tolerating code fences and chatter around it."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        return fenced.group(1)
    start, end = stripped.find("{"), stripped.rfind("}")
    if start != -1 and end > start and not stripped.startswith("{"):
        return stripped[start : end + 1]
    return stripped


def parse_reply(text: str, model: type[BaseModel]) -> BaseModel:
    """Validate a reply against ``model``.

    Raises:
        ValidationError: the reply is not JSON or does not match the schema.
    """
    return model.model_validate_json(extract_json(text))


def check_response_model(model: object) -> type[BaseModel]:
    """Raises InvalidInputError unless ``model`` is a pydantic model class."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model
    raise InvalidInputError(f"response_model must be a pydantic BaseModel subclass, got {model!r}.")


def _short(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)[:5]
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in errors
    )


async def complete_structured(
    client: LLMClient,
    messages: Sequence[Message],
    model: type[BaseModel],
) -> tuple[BaseModel, LLMUsage]:
    """Ask for JSON matching ``model``; retry once with the error; return (object, usage).

    ``messages`` should already carry ``schema_instruction(model)``.

    Raises:
        LLMResponseError: the reply did not validate twice.
        LLMError: any provider failure (see ``LLMClient.complete``).
    """
    response_format = response_format_for(model)
    convo = list(messages)
    usage = LLMUsage()
    for attempt in (1, 2):
        completion = await client.complete(convo, response_format=response_format)
        usage = usage + completion.usage
        try:
            return parse_reply(completion.text, model), usage
        except ValidationError as exc:
            problem = _short(exc)
            if attempt == 2:
                raise LLMResponseError(
                    f"Model {client.config.describe()} did not return JSON matching "
                    f"{model.__name__} after a retry: {problem}. Reply was: "
                    f"{completion.text[:300]!r}. Simplify the model or use a model that "
                    "supports structured output."
                ) from exc
            retry = render_prompt("structured_output_retry", error=problem).user
            convo += [
                {"role": "assistant", "content": completion.text},
                {"role": "user", "content": retry},
            ]
    raise AssertionError("unreachable")
