"""The stages after retrieval that shape what recall() returns: answer, session
write, references and tags."""

from __future__ import annotations

import asyncio

from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.results import context_entry, item_entries
from recall_engine.pipeline.answer import answer_entry
from recall_engine.pipeline.references import add_evidence
from recall_engine.pipeline.retrieve import reader
from recall_engine.pipeline.route import handover_reason
from recall_engine.pipeline.session import answered, element_ids, hit_datasets
from recall_engine.pipeline.state import EngineServices, RecallState
from recall_engine.pipeline.tense import tense_answer
from recall_engine.pipeline.traces import session_block


async def answer(state: RecallState, services: EngineServices) -> None:
    """Results from the hits: items, one context entry (only_context), or an answer
    generated from the context (LLM, else extractive); none when the request asks
    for the hits only (``RecallRequest.results``)."""
    assert state.retriever is not None and state.output is not None
    if not state.request.results:
        return
    assert state.search_type is not None
    request, retriever, output = state.request, state.retriever, state.output
    search_type = output.search_type or state.search_type
    if not output.hits:
        state.results = []
    elif not retriever.answers:
        state.results = list(
            item_entries(list(output.hits), kind=retriever.kind, search_type=search_type)
        )
    elif request.only_context:
        state.results = [
            context_entry(
                list(output.hits),
                output.context_text(),
                kind=retriever.kind,
                search_type=search_type,
            )
        ]
    else:
        block = session_block(state.session, state.traces)
        entry = await answer_entry(
            request,
            output,
            search_type=search_type,
            kind=retriever.kind,
            prompt=retriever.prompt,
            config=services.config,
            session_history=block.text if block is not None else None,
            coverage=state.coverage,
            read=reader(state) if state.store else None,
            offline_question=state.tense.offline_question() if state.tense else None,
            offline_hits=state.tense.answer_hits if state.tense else (),
            retrieval_usage=state.llm_usage,
        )
        if entry.metadata.get("answer_mode") == "extractive" and state.tense is not None:
            tense_answer(entry, request.query_text, state.tense, list(output.hits))
        state.results = [entry]
        if block is not None and entry.metadata.get("answer_mode") == "llm":
            state.session_context = block


async def session_write(state: RecallState, services: EngineServices) -> None:
    """After a generated (LLM or extractive) answer, append the QA entry to the
    session; only_context and item results write nothing, nor does an answer as of
    another time (``as_of``) or from the items ``metadata_filters`` kept: the same
    question asked later without them must not get it from the session's cache."""
    request, output = state.request, state.output
    entry = answered(state.results)
    if request.session_id is None or entry is None or output is None:
        return
    if request.as_of is not None or request.where is not None:
        return
    assert state.user is not None
    hits = list(output.hits)
    record = await asyncio.to_thread(
        services.sessions.append,
        state.tenant_id,
        state.user.id,
        request.session_id,
        question=request.query_text,
        context=output.context_text(),
        answer=entry.text,
        element_ids=element_ids(hits),
        dataset_ids=hit_datasets(hits),
    )
    entry.metadata["session_id"] = request.session_id
    entry.metadata["qa_id"] = record.qa_id


async def references(state: RecallState) -> None:
    """With include_references, an Evidence block under a plain-text answer."""
    request, output = state.request, state.output
    entry = answered(state.results)
    if not request.include_references or entry is None or output is None:
        return
    if entry.structured is not None or request.response_model is not None:
        return
    assert state.store is not None
    await add_evidence(entry, list(output.hits), reader(state))


async def tag(state: RecallState) -> None:
    """Report the route decision, what the retriever reports on every result (its
    ``metadata``) and, verbose, details and timings on every result."""
    route = state.decision.model_dump(mode="json") if state.decision is not None else None
    if route is not None and state.handover is not None:
        assert state.search_type is not None
        route["handover"] = {
            "reason": handover_reason(state.search_type),
            "config": dict(state.handover),
        }
    output = state.output
    coverage = state.coverage.metadata() if state.coverage is not None else None
    for entry in state.results:
        if not isinstance(entry, ResponseGraphEntry):
            continue
        if output is not None:
            entry.metadata.update(output.metadata)
        if route is not None:
            entry.metadata["route"] = route
        if coverage is not None:
            entry.metadata.update(coverage)
        if state.tense is not None:
            temporal = dict(entry.metadata.get("temporal") or {})
            entry.metadata["temporal"] = {**temporal, **state.tense.metadata()}
        if state.request.verbose:
            entry.metadata["retrieval"] = output.details if output is not None else {}
            entry.metadata["timings"] = dict(state.timings)
