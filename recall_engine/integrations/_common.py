"""What both framework adapters share: the recall options they accept, the call
to the engine, running it from synchronous code, and a result's text, score and
provenance as metadata."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Coroutine, Mapping
from typing import Protocol, TypeVar, Unpack, cast

from recall_engine.core.models import (
    RecallResult,
    ResponseGraphEntry,
    ResponseQAEntry,
    ResponseSessionContextEntry,
    ResponseTraceEntry,
)
from recall_engine.core.recall_options import RecallOptions
from recall_engine.core.search_types import SearchType
from recall_engine.pipeline.request import RecallParams

T = TypeVar("T")

OPTIONS = frozenset(RecallParams.model_fields) - {"query_text", "query_type"}
"""The recall() keyword arguments an adapter passes on (query_type is its own field)."""


class Recaller(Protocol):
    """What an adapter needs of an engine: ``RecallEngine`` and ``RemoteRecallEngine``."""

    async def recall(
        self,
        query_text: str,
        query_type: SearchType | str | None = None,
        **options: Unpack[RecallOptions],
    ) -> list[RecallResult]: ...


def check_options(options: Mapping[str, object]) -> dict[str, object]:
    """The recall options, checked by name (values are checked by recall() itself).

    Raises:
        TypeError: an option recall() does not take.
    """
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise TypeError(
            f"RecallRetriever got unknown recall option(s) {unknown}; "
            f"the options are {', '.join(sorted(OPTIONS))}."
        )
    return dict(options)


def check_engine(engine: object) -> Recaller:
    """The engine, once it is seen to have an async ``recall``.

    Raises:
        TypeError: ``engine`` is not a recall engine.
    """
    if not callable(getattr(engine, "recall", None)):
        raise TypeError(
            f"engine must be a RecallEngine or RecallEngine.connect(...), got "
            f"{type(engine).__name__}."
        )
    return cast(Recaller, engine)


async def recall_entries(
    engine: Recaller,
    query: str,
    query_type: SearchType | str | None,
    *,
    top_k: int,
    datasets: list[str] | None,
    options: Mapping[str, object],
) -> list[RecallResult]:
    """One recall for an adapter: its own ``top_k`` and ``datasets`` over its options.

    Returns:
        The engine's results, in rank order.
    """
    # names checked by check_options; recall() checks the values
    call = cast(RecallOptions, {**options, "top_k": top_k})
    if datasets is not None:
        call["datasets"] = datasets
    return await engine.recall(query, query_type, **call)


def run_sync(call: Coroutine[object, object, T]) -> T:
    """Run ``call`` to its end from synchronous code.

    Without a running event loop in this thread it runs on a new one; inside a
    running loop (a notebook, an async app calling a sync API) it runs on a new
    loop in a worker thread while this thread waits, so it works but blocks that
    loop for the call: async code should use the adapter's async method instead.
    Either way the call sees this thread's context variables (the caller's
    OpenTelemetry span, so the recall's spans stay in its trace).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(call)
    context = contextvars.copy_context()  # a worker thread starts with an empty one
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="recall-sync") as pool:
        return pool.submit(context.run, asyncio.run, call).result()


def result_text(entry: RecallResult) -> str:
    """What the framework should read of a result."""
    if isinstance(entry, ResponseQAEntry):
        return entry.answer
    return entry.text


def result_score(entry: RecallResult) -> float | None:
    if isinstance(entry, ResponseGraphEntry | ResponseTraceEntry):
        return entry.score
    return None


def result_id(entry: RecallResult) -> str | None:
    """A stable id: the chunk's, the session QA entry's or the trace's (None for an
    answer or any other result made anew, even where its metadata names the chunk
    it rests on: two results of one id would be taken for one)."""
    if isinstance(entry, ResponseGraphEntry):
        chunk = entry.metadata.get("chunk_id") if entry.kind == "chunk" else None
        return chunk if isinstance(chunk, str) else None
    if isinstance(entry, ResponseQAEntry):
        return entry.qa_id
    if isinstance(entry, ResponseTraceEntry):
        return entry.trace_id
    return None


def result_metadata(entry: RecallResult) -> dict[str, object]:
    """The result's provenance as metadata: everything of ``metadata`` (``sources``
    in rank order, ``route``, ``coverage``, ...) plus ``source``, ``search_type``,
    ``dataset_id``, ``dataset_name``, ``kind`` and ``score``."""
    if isinstance(entry, ResponseGraphEntry):
        metadata = dict(entry.metadata)
        metadata.setdefault("sources", [])
        metadata.update(
            source=entry.source,
            search_type=str(entry.search_type),
            kind=entry.kind,
            dataset_id=entry.dataset_id,
            dataset_name=entry.dataset_name,
            score=entry.score,
        )
        return metadata
    if isinstance(entry, ResponseSessionContextEntry):
        return entry.model_dump(mode="json", exclude={"text"})
    if isinstance(entry, ResponseQAEntry):
        return entry.model_dump(mode="json", exclude={"answer"})
    return entry.model_dump(mode="json", exclude={"text"})
