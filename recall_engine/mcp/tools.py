"""The MCP tools, one method each, over one engine.

Every tool acts in one tenant: the tenant of the caller's API key over HTTP, else
the server's tenant (``--tenant``, or the configured default). Files are read only
from under ``files_root``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Literal, cast

from mcp.server.mcpserver import Context
from pydantic import Field

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.models import Conversation, Document, Message, ResponseGraphEntry
from recall_engine.core.recall_options import RecallOptions
from recall_engine.core.search_types import search_type_names
from recall_engine.engine import RecallEngine
from recall_engine.mcp import reads
from recall_engine.mcp.models import (
    DatasetInfo,
    DatasetsOutput,
    DatasetStatus,
    EntitiesOutput,
    FactsOutput,
    ForgetOutput,
    ItemDetail,
    ItemInfo,
    ItemsOutput,
    RecallItem,
    RecallOutput,
    RememberOutput,
    SessionEntry,
    SessionOutput,
    StatusOutput,
    SubjectFactsOutput,
)
from recall_engine.mcp.options import recall_tool_options, with_options
from recall_engine.tenants.registry import ADMIN

DEFAULT_TOOLS = ("remember", "recall", "forget", "status")
MORE_TOOLS = (
    "list_datasets",
    "list_items",
    "get_item",
    "search_entities",
    "search_facts",
    "facts",
    "get_session_history",
    "add_feedback",
)
TENANT_STATE = "recall_engine_tenant"
"""The key under the HTTP request's ``state`` where authentication leaves the key's tenant."""

Datasets = Annotated[
    list[str] | None, Field(description="Dataset names to search; default: every dataset.")
]
Query = Annotated[
    str, Field(description="A name or a few words; as long as a recall query may be.")
]
TopK = Annotated[int, Field(ge=1, le=100, description="How many results, from 1 to 100.")]


@dataclass(frozen=True)
class McpSettings:
    tenant_id: str | None = None
    """The tenant of stdio calls, admin keys and --no-auth; None: the configured default."""
    files_root: Path = field(default_factory=Path.cwd)
    """remember(path=...) reads only files under this folder."""
    tools: tuple[str, ...] = DEFAULT_TOOLS
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING"
    """The SDK's own log level (stderr)."""


def exactly_one(tool: str, **values: object) -> None:
    """Refuse a call that gives none or several of ``values`` (an empty one is none).

    Raises:
        InvalidInputError: naming what was given, and what was given empty.
    """
    given = [name for name, value in values.items() if value]
    if len(given) == 1:
        return
    names = list(values)
    empty = [name for name, value in values.items() if value is not None and not value]
    why = f" ({' and '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty)"
    raise InvalidInputError(
        f"{tool} needs exactly one of {', '.join(names[:-1])} or {names[-1]}, "
        f"got {given or 'none'}{why if empty and not given else ''}."
    )


def package_version() -> str:
    try:
        return version("recall-engine")
    except PackageNotFoundError:
        return "unknown"


class RecallTools:
    """The tools; ``server.register`` adds the chosen ones to an MCP server."""

    def __init__(self, engine: RecallEngine, settings: McpSettings) -> None:
        self.engine = engine
        self.settings = settings
        self.root = settings.files_root.expanduser().resolve()

    def tool(self, name: str) -> Callable[..., Awaitable[object]]:
        """The tool ``name`` as the server lists it: the method of that name; for
        ``recall``, with every option it takes in its signature (``with_options``)."""
        method: Callable[..., Awaitable[object]] = getattr(self, name)
        if name != "recall":
            return method
        limit = self.engine.config.max_query_chars
        return with_options(
            method,
            {
                "query": f"The question to ask memory, at most {limit:,} characters.",
                "query_type": "auto: the router picks; or a search type: "
                f"{', '.join(search_type_names())}.",
            },
        )

    def tenant(self, ctx: Context) -> str | None:
        """The tenant a call acts in: its key's tenant over HTTP, else the server's."""
        try:
            request = ctx.request_context.request
        except ValueError:  # called outside a request (in-process use)
            request = None
        state = getattr(request, "scope", {}).get("state", {}) if request is not None else {}
        key_tenant = state.get(TENANT_STATE)
        if key_tenant is None or key_tenant == ADMIN:
            return self.settings.tenant_id
        return str(key_tenant)

    # shown by default

    async def remember(
        self,
        ctx: Context,
        text: Annotated[str | None, Field(description="Text to remember.")] = None,
        messages: Annotated[
            list[Message] | None,
            Field(description="A conversation: messages with text, speaker, id, timestamp."),
        ] = None,
        path: Annotated[
            str | None,
            Field(description="A file (.txt .md .json .jsonl) under the server's files root."),
        ] = None,
        dataset: Annotated[
            str, Field(description="The dataset to store in (created when new).")
        ] = "main_dataset",
        session_id: Annotated[
            str | None, Field(description="Kept in each item's metadata as session_id.")
        ] = None,
        metadata: Annotated[
            dict[str, object] | None,
            Field(description="Kept with each item; recall's metadata_filters match it."),
        ] = None,
        node_set: Annotated[
            list[str] | None, Field(description="Named node sets to put the items in.")
        ] = None,
    ) -> RememberOutput:
        """Store text, a conversation or a file in a dataset; the same content again adds
        nothing. Pass exactly one of text, messages, path."""
        exactly_one("remember", text=text, messages=messages, path=path)
        data: object
        if text is not None:
            data = Document(text=text)  # never read as a path, whatever it says
        elif messages is not None:
            data = Conversation(messages=messages)
        else:
            data = await asyncio.to_thread(self._readable_file, str(path))
        if session_id is not None:
            metadata = {**(metadata or {}), "session_id": session_id}
        result = await self.engine.remember(
            data,
            dataset_name=dataset,
            metadata=metadata,
            node_set=node_set,
            tenant_id=self.tenant(ctx),
        )
        return RememberOutput.model_validate(result.model_dump())

    def _readable_file(self, path: str) -> Path:
        """``path`` (relative to the files root, or absolute) if it is a file under the root.

        Raises:
            InvalidInputError: outside the root (links resolved first), or not a file.
        """
        if not path.strip():
            raise InvalidInputError("path must name a file under the server's files root.")
        target = (self.root / Path(path).expanduser()).resolve()
        if not target.is_relative_to(self.root):
            raise InvalidInputError(
                f"path {path!r} is outside the folder this server may read; pass a file "
                "under its files root (recall-engine mcp --files-root)."
            )
        if not target.is_file():
            raise InvalidInputError(f"path {path!r} is not a file under the server's files root.")
        return target

    async def recall(
        self,
        ctx: Context,
        query: str,
        query_type: Annotated[
            str, Field(description="A search type such as CHUNKS or TEMPORAL, or auto: routed.")
        ] = "auto",
        top_k: TopK = 10,
        **options: object,
    ) -> RecallOutput:
        """Ask memory a question: ranked results, each with its source tag and provenance
        (data_id, chunk_id, message ids), plus the router's decision."""
        chosen = None if query_type.strip().lower() == "auto" else query_type
        declared = recall_tool_options()
        given = {k: v for k, v in options.items() if v != declared[k][1].default}
        given.update(top_k=top_k, tenant_id=self.tenant(ctx))
        results = await self.engine.recall(query, chosen, **cast(RecallOptions, given))
        routes = (r.metadata.get("route") for r in results if isinstance(r, ResponseGraphEntry))
        route = next((r for r in routes if r is not None), None) if chosen is None else None
        return RecallOutput(results=[RecallItem.of(r) for r in results], route=route)

    async def forget(
        self,
        ctx: Context,
        data_ids: Annotated[list[str] | None, Field(description="Data items to delete.")] = None,
        dataset: Annotated[str | None, Field(description="A whole dataset to delete.")] = None,
    ) -> ForgetOutput:
        """Delete data items by id, or a whole dataset (exactly one of the two)."""
        # Checked here: the engine's own message names its Python arguments.
        exactly_one("forget", data_ids=data_ids, dataset=dataset)
        removed = await self.engine.forget(
            data_id=data_ids or None, dataset_name=dataset or None, tenant_id=self.tenant(ctx)
        )
        return ForgetOutput(chunks_removed=removed)

    async def status(self, ctx: Context) -> StatusOutput:
        """Datasets with item and chunk counts, offline or LLM mode, and the version."""
        tenant = self.tenant(ctx)
        items = await self.engine.list_items(tenant_id=tenant)
        datasets = []
        for name, dataset_id in sorted((await self.engine.list_datasets(tenant_id=tenant)).items()):
            mine = [i for i in items if i["dataset_name"] == name]
            chunks = sum(int(i["chunk_count"] or 0) for i in mine)
            datasets.append(DatasetStatus(name=name, id=dataset_id, items=len(mine), chunks=chunks))
        config = self.engine.config
        return StatusOutput(
            version=package_version(),
            tenant_id=self.engine.tenant_name(tenant),
            mode="offline" if config.llm_model is None else "llm",
            llm_model=config.llm_model,
            graph_extractor=config.graph_extractor,
            embedding_model=self.engine.embedder.model_id,
            datasets=datasets,
            tools=list(self.settings.tools),
            more_tools=[t for t in (*DEFAULT_TOOLS, *MORE_TOOLS) if t not in self.settings.tools],
        )

    # listed with --tools all

    async def list_datasets(self, ctx: Context) -> DatasetsOutput:
        """The datasets (name, id, owner, permission)."""
        rows = await self.engine.datasets(tenant_id=self.tenant(ctx))
        return DatasetsOutput(
            datasets=[DatasetInfo.model_validate(r.model_dump(mode="json")) for r in rows]
        )

    async def list_items(
        self,
        ctx: Context,
        dataset: Annotated[str | None, Field(description="Default: every dataset.")] = None,
    ) -> ItemsOutput:
        """The data items (data_id, name, dataset, kind, chunk count), oldest first."""
        rows = await self.engine.list_items(dataset_name=dataset, tenant_id=self.tenant(ctx))
        items = [ItemInfo.model_validate({**r, "created_at": reads.created_text(r)}) for r in rows]
        return ItemsOutput(items=items)

    async def get_item(
        self,
        ctx: Context,
        data_id: Annotated[str, Field(description="An id from list_items or a recall source.")],
    ) -> ItemDetail:
        """One data item with its chunks and their provenance (chunk ids, message ids)."""
        return await reads.get_item(self.engine, self.tenant(ctx), data_id)

    async def search_entities(
        self, ctx: Context, query: Query, datasets: Datasets = None, top_k: TopK = 10
    ) -> EntitiesOutput:
        """Entities (people, places, organisations, dates, ...) by name or meaning."""
        found = await reads.search_entities(
            self.engine, self.tenant(ctx), query, datasets=datasets, top_k=top_k
        )
        return EntitiesOutput(entities=found)

    async def search_facts(
        self,
        ctx: Context,
        query: Query,
        datasets: Datasets = None,
        top_k: TopK = 10,
        start: Annotated[
            str | None,
            Field(
                description="ISO 8601: only facts whose own time (a date their sentence names) "
                "is at or after it; facts without one are left out."
            ),
        ] = None,
        end: Annotated[
            str | None,
            Field(
                description="ISO 8601: only facts whose own time is at or before it; facts "
                "without one are left out."
            ),
        ] = None,
    ) -> FactsOutput:
        """Facts (source -[predicate]-> target, with the sentence that states them) nearest
        to the query, optionally within a time window."""
        found = await reads.search_facts(
            self.engine,
            self.tenant(ctx),
            query,
            datasets=datasets,
            top_k=top_k,
            start=start,
            end=end,
        )
        return FactsOutput(facts=found)

    async def facts(
        self,
        ctx: Context,
        subject: Annotated[str, Field(description="Whose facts: a name (a speaker's 'I').")],
        as_of: Annotated[
            str | None, Field(description="ISO 8601: only the facts valid at that time.")
        ] = None,
        history: Annotated[
            bool, Field(description="false: only current facts (ignored with as_of).")
        ] = True,
        datasets: Datasets = None,
    ) -> SubjectFactsOutput:
        """What memory holds about a subject now and before: each fact with when it
        was stated, until when it held and what superseded it."""
        found = await self.engine.facts(
            subject, as_of=as_of, history=history, datasets=datasets, tenant_id=self.tenant(ctx)
        )
        return SubjectFactsOutput(subject=subject, facts=found)

    async def get_session_history(
        self,
        ctx: Context,
        session_id: Annotated[str, Field(description="The session_id recall was given.")],
    ) -> SessionOutput:
        """The questions and answers of a session, oldest first."""
        entries = await reads.session_history(self.engine, self.tenant(ctx), session_id)
        return SessionOutput(session_id=session_id, entries=entries)

    async def add_feedback(
        self,
        ctx: Context,
        session_id: Annotated[str, Field(description="The session_id recall was given.")],
        qa_id: Annotated[str, Field(description="The qa_id of a recall result or entry.")],
        score: Annotated[int, Field(ge=1, le=5)],
        text: Annotated[str | None, Field(description="A comment kept with the rating.")] = None,
    ) -> SessionEntry:
        """Rate a session answer (its qa_id) from 1 to 5."""
        entry = await self.engine.add_feedback(
            session_id, qa_id, score=score, text=text, tenant_id=self.tenant(ctx)
        )
        return SessionEntry.of(entry)
