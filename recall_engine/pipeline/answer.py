"""The answer stage: one answer from a retriever's context, for every answering type."""

from __future__ import annotations

from typing import Any

from recall_engine.completion import generate_answer
from recall_engine.config import RecallConfig
from recall_engine.core.hits import dedupe_sources
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.search_types import SearchType
from recall_engine.pipeline.normalize import hit_raw, single_dataset
from recall_engine.pipeline.request import RecallRequest
from retrievers.base import RetrieverOutput


async def answer_entry(
    request: RecallRequest,
    output: RetrieverOutput,
    *,
    search_type: SearchType,
    kind: str,
    prompt: str,
    config: RecallConfig,
    session_history: str | None = None,
) -> ResponseGraphEntry:
    """Generate (or, offline, extract) the answer and wrap it as one result;
    ``session_history`` (earlier turns of the session) goes to the LLM's prompt."""
    hits = list(output.hits)
    answer = await generate_answer(
        request.query_text,
        hits,
        config=config,
        system_prompt=request.system_prompt,
        system_prompt_path=request.system_prompt_path,
        response_model=request.response_model,
        prompt_name=prompt,
        context_text=output.context,
        session_history=session_history,
    )
    dataset_id, dataset_name = single_dataset(hits)
    metadata: dict[str, Any] = {
        "sources": [s.model_dump() for s in dedupe_sources(hits)],
        "answer_sources": [s.model_dump() for s in answer.sources],
        "answer_mode": answer.answer_mode,
    }
    if request.verbose:
        metadata["usage"] = answer.usage
    structured = answer.structured
    return ResponseGraphEntry(
        text=answer.text,
        kind="structured" if structured is not None else kind,
        search_type=search_type,
        dataset_id=dataset_id,
        dataset_name=dataset_name,
        metadata=metadata,
        raw=structured if structured is not None else [hit_raw(h) for h in hits],
        structured=structured,
    )
