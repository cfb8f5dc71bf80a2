"""The one place answers are produced, for every answer-producing search type.

With an LLM configured (``RecallConfig.llm_model`` or ``llm_config=``) the
answer is generated from a prompt file and the retrieved context
(``answer_mode="llm"``); a low retrieval coverage is told to the model (the
prompts' ``$support`` line). Without one it is extractive: the context sentences
that answer what the question asks for (``recall_engine.llm.extractive``; a
summary for "Summarize ..."), labelled ``answer_mode="extractive"`` so nobody
mistakes it for a generated answer, each sentence with its provenance in
``Answer.evidence``. Offline, a low coverage abstains instead of guessing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hits import AnyHit, dedupe_sources
from recall_engine.core.models import SourceRef
from recall_engine.llm.answer_types import AnswerType, answer_type
from recall_engine.llm.config import LLMConfig
from recall_engine.llm.extractive import (
    NO_CONTEXT_TEXT,
    NOT_IN_CONTEXT_TEXT,
    Evidence,
    bridge_names,
    select_evidence,
)
from recall_engine.llm.extractive_summary import best_item, summary_evidence
from recall_engine.llm.usage import LLMUsage
from recall_engine.prompts import read_prompt_file, render_prompt

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig


class Answer(BaseModel):
    """An answer and what it rests on."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(description="The answer; for structured output, the object as JSON.")
    answer_mode: Literal["llm", "extractive"]
    structured: dict[str, object] | None = Field(
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
    evidence: list[AnswerSentence] = Field(
        default_factory=list,
        description="Extractive answers: each sentence used, with its data_id and chunk_id.",
    )
    answer_type: str | None = Field(
        default=None, description="Extractive answers: what the question asks for."
    )
    abstained: bool = Field(
        default=False, description="True: coverage was low, so no extractive answer was given."
    )


class AnswerSentence(BaseModel):
    """One sentence of an extractive answer and where it came from."""

    model_config = ConfigDict(frozen=True)

    text: str
    role: str = Field(description='"answer", "bridge" (one hop back to it) or "summary".')
    data_id: str | None = None
    chunk_id: str | None = None
    dataset_id: str | None = None
    dataset_name: str | None = None
    span: str | None = Field(default=None, description="The typed part that answers, if any.")


Answer.model_rebuild()


class ContextExpander(Protocol):
    """More context for an offline answer, read from the store in the call's scope."""

    async def mentioning(self, names: Sequence[str]) -> list[AnyHit]:
        """Chunks that mention entities of these names (one hop in the graph)."""
        ...

    async def item_chunks(self, item: AnyHit) -> list[AnyHit]:
        """The chunks of ``item``'s data item around it, in order."""
        ...


ABSTAIN_TEXT = (
    "Not answered: the retrieved context gives little support for this question "
    "(coverage {coverage:.2f} of 1), so it probably does not hold the answer."
)
LOW_SUPPORT_NOTE = (
    "Retrieval note: the context below gives little support for this question (coverage "
    "{coverage:.2f} of 1). If it does not contain the answer, say so instead of guessing.\n\n"
)
SPAN_TYPES = (AnswerType.TIME, AnswerType.PLACE, AnswerType.PERSON, AnswerType.NUMBER)


def resolve_llm_config(
    config: RecallConfig, llm_config: LLMConfig | None = None
) -> LLMConfig | None:
    """The LLM to use: ``llm_config`` if given, else the one in ``config``, else None."""
    if llm_config is not None:
        return llm_config
    return LLMConfig.from_recall_config(config) if config.llm_configured else None


def resolve_response_model(
    response_model: type[BaseModel] | None,
    retriever_specific_config: Mapping[str, object] | None,
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


def _name(model: object) -> str:
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


def _evidence(query: str, items: Sequence[AnyHit], kind: AnswerType) -> list[Evidence]:
    if kind is AnswerType.SUMMARY:
        return summary_evidence(query, items) or select_evidence(query, items)
    return select_evidence(query, items, answer_type=kind)


def answer_text(evidence: Sequence[Evidence], kind: AnswerType) -> str:
    """The answer's text: the typed span for a date, place, person or number
    question when the answer sentence has one, else the chosen sentences."""
    first = evidence[0]
    if kind in SPAN_TYPES and first.span:
        return first.span
    return " ".join(e.sentence for e in evidence)


def _extractive(
    query: str,
    items: Sequence[AnyHit],
    evidence: list[Evidence],
    kind: AnswerType,
    started: float,
) -> Answer:
    if evidence:
        text = answer_text(evidence, kind)
        used = [items[i] for i in dict.fromkeys(e.item_index for e in evidence) if i < len(items)]
        sources = sources_of(used)
    else:
        text, sources = (NOT_IN_CONTEXT_TEXT if items else NO_CONTEXT_TEXT), []
    latency = (time.perf_counter() - started) * 1000
    return Answer(
        text=text,
        answer_mode="extractive",
        usage=LLMUsage(latency_ms=round(latency, 3)).as_dict(),
        sources=sources,
        answer_type=kind.value,
        evidence=[
            AnswerSentence(
                text=e.sentence,
                role=e.role,
                data_id=e.data_id,
                chunk_id=e.chunk_id,
                dataset_id=e.dataset_id,
                dataset_name=e.dataset_name,
                span=e.span,
            )
            for e in evidence
        ],
    )


def extractive_answer(query: str, items: Sequence[AnyHit]) -> Answer:
    """The answer without an LLM, from ``items`` alone (see ``offline_answer``)."""
    started = time.perf_counter()
    kind = answer_type(query)
    return _extractive(query, items, _evidence(query, items, kind), kind, started)


async def offline_answer(
    query: str, items: Sequence[AnyHit], *, expand: ContextExpander | None = None
) -> Answer:
    """The extractive answer, reading one hop further when ``expand`` is given: the
    facts of a name the best sentence gives but the question does not, and, for a
    summary, the rest of the summarised item."""
    started = time.perf_counter()
    kind = answer_type(query)
    pool = list(items)
    evidence = _evidence(query, pool, kind)
    if expand is not None and pool:
        extra: list[AnyHit] = []
        if kind is AnswerType.SUMMARY:
            best = best_item(query, pool)
            extra = await expand.item_chunks(best) if best is not None else []
        elif evidence and all(e.role == "answer" for e in evidence):
            names = bridge_names(evidence[0].sentence, query)
            extra = await expand.mentioning(names) if names else []
        known = {getattr(i, "chunk_id", None) for i in pool}
        extra = [e for e in extra if getattr(e, "chunk_id", None) not in known]
        if extra:
            widened = [*pool, *extra]
            better = _evidence(query, widened, kind)
            if kind is AnswerType.SUMMARY or any(e.role == "bridge" for e in better):
                pool, evidence = widened, better
    return _extractive(query, pool, evidence, kind, started)


def abstained_answer(query: str, coverage: float) -> Answer:
    """The offline answer when coverage is low: says so, gives no sentence."""
    return Answer(
        text=ABSTAIN_TEXT.format(coverage=coverage),
        answer_mode="extractive",
        usage=LLMUsage().as_dict(),
        answer_type=answer_type(query).value,
        abstained=True,
    )


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
    coverage: float | None = None,
    coverage_low: bool = False,
    expand: ContextExpander | None = None,
) -> Answer:
    """Answer ``query`` from ``items`` (ranked context, best first).

    ``system_prompt`` (text) or ``system_prompt_path`` (a file, used verbatim)
    replace the prompt's system message, grounding instruction included.
    ``prompt_name`` picks a prompt taking ``question``, ``context`` and
    ``history`` (e.g. ``answer_from_graph_context``); ``context_text`` replaces
    the numbered blocks built from ``items`` when a retriever laid its context
    out. ``response_model`` asks for JSON matching that pydantic model; the
    result is in ``Answer.structured``. ``coverage_low`` (with ``coverage``, the
    pipeline's measure of how well the context supports the question) makes the
    offline answer abstain and tells an LLM so; ``expand`` lets the offline answer
    follow a name one hop (``offline_answer``).

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
                "the LLM_MODEL environment variable (or RecallEngine(llm_model=...)), or drop "
                "response_model to get an extractive answer."
            )
        if coverage_low and items:
            return abstained_answer(query, coverage or 0.0)
        return await offline_answer(query, items, expand=expand)

    from recall_engine.llm.client import LLMClient
    from recall_engine.llm.structured import complete_structured, schema_instruction

    history = (session_history or "").strip()
    prompt = render_prompt(
        prompt_name,
        question=query,
        context=context_text if context_text is not None else format_context(items),
        history=f"Previous conversation:\n{history}\n\n" if history else "",
        support=LOW_SUPPORT_NOTE.format(coverage=coverage or 0.0) if coverage_low else "",
    )
    messages = prompt.messages(system_override=system_prompt)
    client = LLMClient(llm)
    structured: dict[str, object] | None = None
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
