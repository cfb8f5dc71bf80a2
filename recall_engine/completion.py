"""The one place answers are produced, for every answer-producing search type.

With an LLM configured (``RecallConfig.llm_model`` or ``llm_config=``) the
answer is generated from a prompt file and the retrieved context
(``answer_mode="llm"``). Without one it is extractive: the context sentences
that best match the question, labelled ``answer_mode="extractive"`` so nobody
mistakes it for a generated answer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import AnyHit, dedupe_sources
from recall_engine.core.models import SourceRef
from recall_engine.llm.config import LLMConfig
from recall_engine.llm.extractive import NO_CONTEXT_TEXT, NOT_IN_CONTEXT_TEXT, select_evidence
from recall_engine.llm.usage import LLMUsage
from recall_engine.prompts import read_prompt_file, render_prompt

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig


class Answer(BaseModel):
    """An answer and what it rests on."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The answer; for structured output, the object as JSON.")
    answer_mode: Literal["llm", "extractive"]
    structured: dict[str, Any] | None = Field(
        default=None, description="The validated response_model object, as a dict."
    )
    usage: dict[str, Any] = Field(
        default_factory=dict,
        description="model, prompt_tokens, completion_tokens, total_tokens, latency_ms, "
        "calls, attempts (see LLMUsage.as_dict); zero tokens and model None when extractive.",
    )
    sources: list[SourceRef] = Field(
        default_factory=list, description="Provenance the answer rests on, in rank order."
    )


def resolve_llm_config(
    config: RecallConfig, llm_config: LLMConfig | None = None
) -> LLMConfig | None:
    """The LLM to use: ``llm_config`` if given, else the one in ``config``, else None."""
    if llm_config is not None:
        return llm_config
    return LLMConfig.from_recall_config(config) if config.llm_configured else None


def resolve_response_model(
    response_model: type[BaseModel] | None,
    retriever_specific_config: Mapping[str, Any] | None,
) -> type[BaseModel] | None:
    """The one response model of a call, given either or both ways of passing it.

    Raises:
        InvalidInputError: two different models, or something that is not a pydantic model.
    """
    from recall_engine.llm.structured import check_response_model

    other = (retriever_specific_config or {}).get("response_model")
    if response_model is not None and other is not None and other is not response_model:
        raise InvalidInputError(
            f"response_model={_name(response_model)} and retriever_specific_config"
            f"['response_model']={_name(other)} disagree; pass the model once."
        )
    chosen = response_model if response_model is not None else other
    return None if chosen is None else check_response_model(chosen)


def _name(model: Any) -> str:
    return getattr(model, "__name__", repr(model))


def sources_of(items: Sequence[AnyHit]) -> list[SourceRef]:
    """Every item's sources, in rank order, without repeats."""
    return dedupe_sources(items)


def format_context(items: Sequence[AnyHit]) -> str:
    """Items as numbered blocks, best first, each naming its document."""
    if not items:
        return "(no context was retrieved)"
    blocks = []
    for n, item in enumerate(items, start=1):
        names = list(dict.fromkeys(ref.document_name for ref in item.sources))
        label = f" (from {', '.join(names[:3])})" if names else ""
        blocks.append(f"[{n}]{label} {item.text.strip()}")
    return "\n\n".join(blocks)


def extractive_answer(query: str, items: Sequence[AnyHit], *, max_sentences: int = 3) -> Answer:
    """The answer without an LLM: best-matching context sentences, with their sources."""
    started = time.perf_counter()
    evidence = select_evidence(query, items, max_sentences=max_sentences)
    if evidence:
        text = " ".join(e.sentence for e in evidence)
        sources = sources_of([items[i] for i in dict.fromkeys(e.item_index for e in evidence)])
    else:
        text, sources = (NOT_IN_CONTEXT_TEXT if items else NO_CONTEXT_TEXT), []
    latency = (time.perf_counter() - started) * 1000
    usage = LLMUsage(latency_ms=round(latency, 3)).as_dict()
    return Answer(text=text, answer_mode="extractive", usage=usage, sources=sources)


async def generate_answer(
    query: str,
    items: Sequence[AnyHit],
    *,
    config: RecallConfig,
    llm_config: LLMConfig | None = None,
    system_prompt: str | None = None,
    system_prompt_path: str | Path | None = None,
    response_model: type[BaseModel] | None = None,
    prompt_name: str = "answer_from_context",
    session_history: str | None = None,
    context_text: str | None = None,
) -> Answer:
    """Answer ``query`` from ``items`` (ranked context, best first).

    ``system_prompt`` (text) or ``system_prompt_path`` (a file, used verbatim)
    replace the prompt's system message, grounding instruction included.
    ``prompt_name`` picks a prompt taking ``question``, ``context`` and
    ``history`` (e.g. ``answer_from_graph_context``); ``context_text`` replaces
    the numbered blocks built from ``items`` when a retriever laid its context
    out. ``response_model`` asks for JSON matching that pydantic model; the
    result is in ``Answer.structured``.

    Raises:
        InvalidInputError: both system prompt arguments, a bad ``response_model``,
            or ``response_model`` with no LLM configured (structured output needs one).
        PromptNotFoundError, PromptRenderError: a bad ``prompt_name`` or ``system_prompt_path``.
        LLMError and subclasses: the provider failed (see ``LLMClient.complete``).
    """
    if system_prompt is not None and system_prompt_path is not None:
        raise InvalidInputError("Pass system_prompt or system_prompt_path, not both.")
    if system_prompt_path is not None:
        system_prompt = read_prompt_file(system_prompt_path)
    model = resolve_response_model(response_model, None)
    llm = resolve_llm_config(config, llm_config)
    if llm is None:
        if model is not None:
            raise InvalidInputError(
                f"Structured output (response_model={model.__name__}) needs an LLM: set "
                "LLM_MODEL (or pass llm_config=...), or drop response_model to get an "
                "extractive answer."
            )
        return extractive_answer(query, items)

    from recall_engine.llm.client import LLMClient
    from recall_engine.llm.structured import complete_structured, schema_instruction

    history = (session_history or "").strip()
    prompt = render_prompt(
        prompt_name,
        question=query,
        context=context_text if context_text is not None else format_context(items),
        history=f"Previous conversation:\n{history}\n\n" if history else "",
    )
    messages = prompt.messages(system_override=system_prompt)
    client = LLMClient(llm)
    structured: dict[str, Any] | None = None
    if model is None:
        completion = await client.complete(messages)
        text, usage = completion.text.strip(), completion.usage
    else:
        messages[-1]["content"] += "\n\n" + schema_instruction(model)
        obj, usage = await complete_structured(client, messages, model)
        structured = obj.model_dump(mode="json")
        text = json.dumps(structured, ensure_ascii=False)
    return Answer(
        text=text,
        answer_mode="llm",
        structured=structured,
        usage=usage.as_dict(),
        sources=sources_of(items),
    )
