"""recall(): validate the request, pick the search type, retrieve, answer, tag results."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

import router
from recall_engine.core.errors import InvalidInputError, SearchTypeNotImplementedError
from recall_engine.core.models import ResponseGraphEntry, ResponseQAEntry, SourceRef
from recall_engine.core.search_types import SearchType, parse_search_type
from retrievers import RETRIEVERS, RetrievalContext, RetrieverOutput
from router import Router

if TYPE_CHECKING:
    from recall_engine.engine import RecallEngine
    from recall_engine.storage.tenant import TenantStore

logger = logging.getLogger(__name__)

MAX_TOP_K = 1000


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall() call."""

    query_text: str
    query_type: SearchType | None
    datasets: tuple[str, ...] | None
    dataset_ids: tuple[str, ...] | None
    top_k: int
    auto_route: bool
    session_id: str | None
    only_context: bool
    system_prompt: str | None
    system_prompt_path: str | Path | None
    verbose: bool
    retriever_specific_config: dict[str, Any]
    response_model: type[BaseModel] | None
    include_references: bool
    extras: dict[str, Any]

    @classmethod
    def build(cls, **kw: Any) -> RecallRequest:
        """Check every argument and normalise it.

        Raises:
            InvalidInputError: a value that recall() cannot use, with what to pass instead.
        """
        query = kw["query_text"]
        if not isinstance(query, str):
            raise InvalidInputError(f"query_text must be a string, got {type(query).__name__}.")
        if not query.strip():
            raise InvalidInputError("query_text is empty; ask a question or give keywords.")
        top_k = kw["top_k"]
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInputError(
                f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}."
            )
        query_type = kw["query_type"]
        if query_type is not None:
            try:
                query_type = parse_search_type(query_type)
            except ValueError as exc:
                raise InvalidInputError(str(exc)) from exc
        specific = kw["retriever_specific_config"] or {}
        if not isinstance(specific, dict):
            raise InvalidInputError("retriever_specific_config must be a dict.")
        from recall_engine.completion import resolve_response_model

        response_model = resolve_response_model(kw["response_model"], specific)
        return cls(
            query_text=query,
            query_type=query_type,
            datasets=_names(kw["datasets"], "datasets"),
            dataset_ids=_names(kw["dataset_ids"], "dataset_ids"),
            top_k=top_k,
            auto_route=bool(kw["auto_route"]),
            session_id=kw["session_id"],
            only_context=bool(kw["only_context"]),
            system_prompt=kw["system_prompt"],
            system_prompt_path=kw["system_prompt_path"],
            verbose=bool(kw["verbose"]),
            retriever_specific_config={k: v for k, v in specific.items() if k != "response_model"},
            response_model=response_model,
            include_references=bool(kw["include_references"]),
            extras={
                k: kw[k]
                for k in (
                    "node_name",
                    "node_name_filter_operator",
                    "wide_search_top_k",
                    "triplet_distance_penalty",
                    "feedback_influence",
                    "user",
                )
            },
        )


def _names(value: Sequence[str] | str | None, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    values = [value] if isinstance(value, str) else list(value)
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise InvalidInputError(f"{what} must be a non-empty list of non-empty strings.")
    return tuple(v.strip() for v in values)


def choose_search_type(
    request: RecallRequest, config: Any, rules: Router
) -> tuple[SearchType, dict | None]:
    """The search type to run and the router's decision (None when the router did not run)."""
    decision = rules.route(request.query_text) if request.auto_route else None
    if request.query_type is not None:
        chosen = request.query_type
        if decision is not None:
            router.log_override(decision, chosen)
    elif decision is not None:
        chosen = decision.search_type
    else:
        chosen = SearchType.GRAPH_COMPLETION
    from recall_engine.pipeline.route import check_search_type_allowed

    check_search_type_allowed(chosen, config)
    return chosen, decision.model_dump(mode="json") if decision is not None else None


def _retriever_options(retriever_cls: Any, specific: dict[str, Any]) -> BaseModel:
    try:
        return retriever_cls.config_model(**specific)
    except ValidationError as exc:
        raise InvalidInputError(
            f"retriever_specific_config does not fit {retriever_cls.search_type}: {exc}"
        ) from exc


async def run_recall(
    request: RecallRequest,
    *,
    store: TenantStore,
    engine: RecallEngine,
    dataset_scope: tuple[str, ...] | None,
) -> list[ResponseGraphEntry | ResponseQAEntry]:
    """Run a validated request against a tenant store."""
    search_type, route = choose_search_type(request, engine.config, engine.router)
    retriever_cls = RETRIEVERS.get(search_type)
    if retriever_cls is None:
        available = ", ".join(t.value for t in RETRIEVERS)
        raise SearchTypeNotImplementedError(
            f"Search type {search_type.value} is not implemented yet; pass query_type= one of: "
            f"{available}."
        )
    ctx = RetrievalContext(
        store=store,
        embedder=engine.embedder,
        config=engine.config,
        top_k=request.top_k,
        dataset_ids=dataset_scope,
        options=_retriever_options(retriever_cls, request.retriever_specific_config),
    )
    output = await retriever_cls().retrieve(request.query_text, ctx)
    if retriever_cls.produces_answer:
        entries = await _answer_entries(request, retriever_cls, search_type, output, engine)
    else:
        entries = _item_entries(search_type, output, verbose=request.verbose)
    for entry in entries:
        if route is not None:
            entry.metadata["route"] = route
    return list(entries)


def _item_entries(
    search_type: SearchType, output: RetrieverOutput, *, verbose: bool
) -> list[ResponseGraphEntry]:
    entries = []
    for item in output.items:
        metadata = {k: v for k, v in item.metadata.items() if k not in ("text", "metadata", "id")}
        metadata.update(item.metadata.get("metadata", {}))
        if "id" in item.metadata:
            metadata["chunk_id"] = item.metadata["id"]
        metadata["sources"] = [s.model_dump() for s in item.sources]
        if verbose:
            metadata["retrieval"] = output.details
        entries.append(
            ResponseGraphEntry(
                text=item.text,
                kind=item.kind,
                search_type=search_type,
                dataset_id=item.dataset_id,
                dataset_name=item.dataset_name,
                metadata=metadata,
                raw=item.raw,
                score=item.score,
            )
        )
    return entries


def _sources(output: RetrieverOutput) -> list[SourceRef]:
    seen: dict[str, SourceRef] = {}
    for item in output.items:
        for source in item.sources:
            seen.setdefault(source.chunk_id, source)
    return list(seen.values())


def _single_dataset(output: RetrieverOutput) -> tuple[str | None, str | None]:
    datasets = {(i.dataset_id, i.dataset_name) for i in output.items}
    return next(iter(datasets)) if len(datasets) == 1 else (None, None)


async def _answer_entries(
    request: RecallRequest,
    retriever_cls: Any,
    search_type: SearchType,
    output: RetrieverOutput,
    engine: RecallEngine,
) -> list[ResponseGraphEntry]:
    dataset_id, dataset_name = _single_dataset(output)
    sources = [s.model_dump() for s in _sources(output)]
    if request.only_context:
        return [
            ResponseGraphEntry(
                text=output.context_text(),
                kind=retriever_cls.kind,
                search_type=search_type,
                dataset_id=dataset_id,
                dataset_name=dataset_name,
                metadata={"sources": sources, "answer_mode": "context_only"},
                raw=[item.raw for item in output.items],
            )
        ]
    from recall_engine.completion import generate_answer

    answer = await generate_answer(
        request.query_text,
        output.items,
        config=engine.config,
        system_prompt=request.system_prompt,
        system_prompt_path=request.system_prompt_path,
        response_model=request.response_model,
    )
    metadata: dict[str, Any] = {
        "sources": sources,
        "answer_sources": [s.model_dump() for s in answer.sources],
        "answer_mode": answer.answer_mode,
    }
    if request.verbose:
        metadata["usage"] = answer.usage
        metadata["retrieval"] = output.details
    structured = answer.structured
    return [
        ResponseGraphEntry(
            text=answer.text,
            kind="structured" if structured is not None else retriever_cls.kind,
            search_type=search_type,
            dataset_id=dataset_id,
            dataset_name=dataset_name,
            metadata=metadata,
            raw=structured if structured is not None else [item.raw for item in output.items],
            structured=structured,
        )
    ]
