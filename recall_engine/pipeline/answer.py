"""The answer stage: one answer from a retriever's context, for every answering type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from recall_engine.config import RecallConfig
from recall_engine.core.hits import AnyHit, dedupe_sources
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.core.records import RecordSet
from recall_engine.core.results import hit_raw, single_dataset
from recall_engine.core.search_types import SearchTypeName
from recall_engine.llm.answer_records import records_answer
from recall_engine.llm.answer_report import report_answer
from recall_engine.llm.completion import Answer, generate_answer, resolve_llm_config
from recall_engine.llm.usage import LLMUsage
from recall_engine.pipeline.coverage import Coverage
from recall_engine.pipeline.request import RecallRequest
from recall_engine.read.api import ReadAPI
from retrievers.base import RetrieverOutput

HOP_CHUNKS = 20
"""At most this many chunks are read for the one-hop facts of a name."""
ITEM_NEIGHBOURS = 12
"""Chunks read on each side of the best chunk when summarising its data item."""


class ReaderExpander:
    """``ContextExpander`` on the call's read API: the graph's mention edges for a
    name, a data item's neighbouring chunks for a summary."""

    def __init__(self, read: ReadAPI) -> None:
        self.read = read

    async def mentioning(self, names: Sequence[str]) -> list[AnyHit]:
        entities = await self.read.entities_by_name(list(names))
        if not entities:
            return []
        mentions = await self.read.mentions([e.id for e in entities])
        chunk_ids = list(dict.fromkeys(c for e in entities for c in mentions.get(e.id, ())))
        return list(await self.read.chunks_by_id(chunk_ids[:HOP_CHUNKS]))

    async def item_chunks(self, item: AnyHit) -> list[AnyHit]:
        chunk_id = getattr(item, "chunk_id", None) or (
            item.sources[0].chunk_id if item.sources else None
        )
        if chunk_id is None:
            return []
        return list(await self.read.chunks_by_id([chunk_id], neighbours=ITEM_NEIGHBOURS))


def computed_answer(output: RetrieverOutput) -> Answer | None:
    """The offline answer a retriever's records compute exactly (BROAD's count or
    list, GRAPH_REPORT's report), or None: then sentences are extracted."""
    if "records" in output.metadata:
        return records_answer(RecordSet.model_validate(output.metadata["records"]))
    report = output.metadata.get("graph_report")
    if isinstance(report, Mapping):
        return report_answer(report)
    return None


def _answer_origin(answer: Answer, hits: list[AnyHit]) -> dict[str, str | None]:
    """dataset and data item of what the answer rests on: its first evidence
    sentence (extractive) or first source (LLM), else the one dataset of the hits."""
    origin = answer.evidence[0] if answer.evidence else next(iter(answer.sources), None)
    if origin is not None:
        return {
            "dataset_id": origin.dataset_id,
            "dataset_name": origin.dataset_name,
            "data_id": origin.data_id,
            "chunk_id": origin.chunk_id,
        }
    dataset_id, dataset_name = single_dataset(hits)
    return {"dataset_id": dataset_id, "dataset_name": dataset_name, "data_id": None}


async def answer_entry(
    request: RecallRequest,
    output: RetrieverOutput,
    *,
    search_type: SearchTypeName,
    kind: str,
    prompt: str,
    config: RecallConfig,
    session_history: str | None = None,
    coverage: Coverage | None = None,
    read: ReadAPI | None = None,
    offline_question: str | None = None,
    offline_hits: Sequence[AnyHit] = (),
    retrieval_usage: Sequence[LLMUsage] = (),
) -> ResponseGraphEntry:
    """Generate (or, offline, extract) the answer and wrap it as one result;
    ``session_history`` (earlier turns of the session) goes to the LLM's prompt;
    a low ``coverage`` abstains offline and is told to the LLM; ``read`` lets the
    offline answer follow a name one hop and read a summarised item whole;
    ``offline_question`` and ``offline_hits`` replace the question and the hits for
    an answer without an LLM (the question less its time cues, the hits of the time
    it asks about: ``pipeline.tense``); ``retrieval_usage``, the LLM calls retrieval
    made, counts in ``metadata["usage"]`` with the answer's own."""
    hits = list(output.hits)
    offline = resolve_llm_config(config) is None
    computed = computed_answer(output) if offline else None
    answer = computed or await generate_answer(
        offline_question if offline and offline_question else request.query_text,
        list(offline_hits) if offline and offline_hits else hits,
        config=config,
        system_prompt=request.system_prompt,
        system_prompt_path=request.system_prompt_path,
        response_model=request.response_model,
        prompt_name=prompt,
        context_text=output.context,
        session_history=session_history,
        coverage=coverage.value if coverage is not None else None,
        coverage_low=coverage.low if coverage is not None else False,
        expand=ReaderExpander(read) if read is not None else None,
    )
    origin = _answer_origin(answer, hits)
    metadata: dict[str, object] = {
        "sources": [s.model_dump() for s in dedupe_sources(hits)],
        "answer_sources": [s.model_dump() for s in answer.sources],
        "answer_mode": answer.answer_mode,
        "data_id": origin["data_id"],
    }
    if origin.get("chunk_id"):
        metadata["chunk_id"] = origin["chunk_id"]
    if answer.answer_mode == "extractive":
        metadata["answer_type"] = answer.answer_type
        metadata["answer_evidence"] = [e.model_dump() for e in answer.evidence]
        metadata["abstained"] = answer.abstained
    if request.verbose:
        usage = sum(retrieval_usage, LLMUsage.model_validate(answer.usage))
        metadata["usage"] = usage.as_dict()
    structured = answer.structured
    return ResponseGraphEntry(
        text=answer.text,
        kind="structured" if structured is not None else kind,
        search_type=search_type,
        dataset_id=origin["dataset_id"],
        dataset_name=origin["dataset_name"],
        metadata=metadata,
        raw=structured if structured is not None else [hit_raw(h) for h in hits],
        structured=structured,
    )
