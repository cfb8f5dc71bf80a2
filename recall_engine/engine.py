"""RecallEngine: the embedded entry point (remember, recall, forget)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from recall_engine.config import RecallConfig
from recall_engine.core.errors import (
    ConfigError,
    DatasetNotFoundError,
    InvalidInputError,
    RecallPreconditionError,
)
from recall_engine.core.limits import check_query_size
from recall_engine.core.models import RecallResult, RememberResult, ResponseQAEntry
from recall_engine.core.search_types import SearchType
from recall_engine.core.validation import check_ids, check_name
from recall_engine.embedding import Embedder, make_embedder
from recall_engine.identity import DatasetAccess, IdentityRegistry, User
from recall_engine.identity.service import AccessControl
from recall_engine.ingest.node_sets import apply_node_sets, check_node_sets
from recall_engine.ingest.sources import collect_items
from recall_engine.pipeline.request import RecallRequest, check_session_id
from recall_engine.pipeline.run import RecallPipeline
from recall_engine.pipeline.scope import resolve_dataset_ids
from recall_engine.sessions import SessionStore
from recall_engine.sessions.redact import Redactor
from recall_engine.sessions.traces import TraceStore
from recall_engine.sessions.tracing import TraceTarget, traced
from recall_engine.storage.store_lock import hold_data_dir
from recall_engine.storage.tenant import TenantStore
from router import DEFAULT_RULES, Router, default_router, load_rules

if TYPE_CHECKING:
    from recall_engine.remote import RemoteRecallEngine
    from recall_engine.tenants import TenantAPI

P = ParamSpec("P")
R = TypeVar("R")


def _build_router(config: RecallConfig) -> Router:
    """The default rule table, plus the rules of ``config.router_rules`` when set.

    Raises:
        InvalidRuleError: the file holds a rule that cannot be loaded.
        InvalidInputError: the file does not exist.
    """
    if config.router_rules is None:
        return default_router()
    if config.router_rules.is_dir():
        raise ConfigError(
            f"router_rules {config.router_rules} is a folder; pass a .toml or .json rules file."
        )
    if not config.router_rules.is_file():
        raise ConfigError(
            f"router_rules file {config.router_rules} does not exist; check the path "
            "(or $RECALL_ENGINE_ROUTER_RULES)."
        )
    return Router(load_rules(config.router_rules, base=DEFAULT_RULES))


class RecallEngine:
    """A recall engine over one data dir; each tenant gets its own stores inside it.

    Args:
        data_dir: where stores live; defaults to ``RECALL_ENGINE_DATA_DIR`` or
            ``./.recall_engine``.
        config: a full configuration; ``overrides`` change single fields of it.
        embedder: an ``Embedder`` to use instead of the configured model (tests).

    The engine holds its data dir until ``close()``: one process at a time may
    open a data dir (engines of one process share it).

    Raises:
        StoreLockedError: another process holds the data dir (the message names its pid).
        ConfigError: a bad configuration value, or a data dir that cannot be created.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        config: RecallConfig | None = None,
        embedder: Embedder | None = None,
        **overrides: Any,
    ) -> None:
        if data_dir is not None:
            overrides["data_dir"] = data_dir  # RecallConfig checks and converts it
        if config is None:
            config = RecallConfig.load(**overrides)
        elif overrides:
            config = RecallConfig.model_validate({**config.model_dump(), **overrides})
        self.config = config
        # Checked before the lock, so that a bad option changes nothing on disk.
        self.embedder: Embedder = embedder or make_embedder(config)
        self.router = _build_router(config)
        # Every store below (graphs, vectors, identity, tenants, sessions) is
        # written only through an engine that holds the data dir.
        self._hold = hold_data_dir(config.data_dir)
        self._stores: dict[str, TenantStore] = {}
        self._open_lock = threading.Lock()
        self._closed = False
        try:
            self.identity = IdentityRegistry(config.data_dir)
            self.sessions = SessionStore(config.data_dir, ttl_s=config.session_ttl_days * 86400)
            self.traces = TraceStore(config.data_dir, ttl_s=config.session_ttl_days * 86400)
            self._access = AccessControl(self.identity)
            self._pipeline = RecallPipeline(self)
        except BaseException:
            self._hold.release()
            raise

    @staticmethod
    def connect(url: str, *, api_key: str | None = None, **options: Any) -> RemoteRecallEngine:
        """This API over a running ``recall-engine serve`` (see ``RemoteRecallEngine``)."""
        from recall_engine.remote import RemoteRecallEngine

        return RemoteRecallEngine(url, api_key=api_key, **options)

    async def __aenter__(self) -> RecallEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release every open store and the data dir (another process may then open it)."""
        with self._open_lock:
            try:
                for store in self._stores.values():
                    store.close()
                self._stores.clear()
                self.identity.close()
                self.sessions.close()
                self.traces.close()
            finally:
                self._closed = True
                self._hold.release()

    def tenant_name(self, tenant_id: str | None) -> str:
        """The checked tenant id (the configured default when None).

        Raises:
            InvalidInputError: not a valid tenant name.
        """
        return self._tenant(tenant_id)

    def _tenant(self, tenant_id: str | None) -> str:
        if tenant_id is None:
            return self.config.default_tenant
        return check_name(tenant_id, what="tenant_id")

    def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore:
        """The open store of a tenant.

        Raises:
            RecallPreconditionError: the tenant has no store and ``create`` is False.
        """
        tenant = self._tenant(tenant_id)
        with self._open_lock:
            if self._closed:
                raise InvalidInputError("This RecallEngine is closed; create a new one.")
            if tenant in self._stores:
                return self._stores[tenant]
            root = self.config.tenant_dir(tenant)
            if not create and not TenantStore.exists(root):
                raise RecallPreconditionError(
                    f"Nothing has been remembered in tenant {tenant!r} yet; call remember() first."
                )
            try:
                store = TenantStore.open(
                    root,
                    tenant,
                    model_id=self.embedder.model_id,
                    dimension=lambda: self.embedder.dimension,
                )
            except OSError as exc:  # the data dir itself: a file in the way, no permission
                raise ConfigError(  # no path: the message may reach an HTTP client
                    f"The data dir cannot hold the store of tenant {tenant!r}: "
                    f"{exc.strerror or type(exc).__name__}. Pass a writable folder as data_dir "
                    "(or $RECALL_ENGINE_DATA_DIR)."
                ) from exc
            self._stores[tenant] = store
            return store

    async def remember(
        self,
        data: Any,
        *,
        dataset_name: str = "main_dataset",
        metadata: dict[str, Any] | None = None,
        tenant_id: str | None = None,
        show_progress: bool | None = None,
        user: User | str | None = None,
        dataset_id: str | None = None,
        node_set: Sequence[str] | None = None,
    ) -> RememberResult:
        """Store documents, files, folders or conversations in a dataset.

        Ingesting the same content into the same dataset again adds nothing; a
        document with a known ``source_id`` (or file path) and new content
        replaces the old version. ``dataset_name`` names one of ``user``'s own
        datasets (created on first use, owned by that user; the default user when
        ``user`` is None); ``dataset_id`` writes into any dataset the user may
        write to, shared ones included, and wins over the name. ``node_set``
        puts the items in named node sets (CODING_RULES reads
        ``coding_agent_rules``); content already stored keeps its node sets.

        Raises:
            InvalidInputError: bad data, dataset name or metadata (nothing is stored).
            InputTooLargeError: an item over ``config.max_item_chars`` (nothing is stored).
            UserNotFoundError: an unknown ``user``.
            DatasetNotFoundError: an unknown ``dataset_id``.
            PermissionDeniedError: no write permission on ``dataset_id`` (nothing is stored).
            StoreError, EmbeddingError: a backend failed (nothing of this call is stored).
        """
        name = check_name(dataset_name, what="dataset_name")
        tenant = self._tenant(tenant_id)
        if show_progress is not None and not isinstance(show_progress, bool):
            raise InvalidInputError(
                f"show_progress must be True, False or None, got {show_progress!r}."
            )
        # Files are read, and everything CPU-bound runs, in worker threads: the
        # event loop keeps serving other tasks during an ingest.
        node_sets = check_node_sets(node_set)
        items = await asyncio.to_thread(
            collect_items,
            data,
            metadata,
            skip=(self.config.data_dir,),
            max_chars=self.config.max_item_chars,
        )
        apply_node_sets(items, node_sets)
        from recall_engine.ingest.ingestor import ingest

        if user is not None:  # an unknown user must not create an empty store
            await asyncio.to_thread(self._access.registry.resolve_user, tenant, user)
        if dataset_id is not None:
            dataset_id = check_ids(dataset_id, what="dataset_id")[0]
            store = await asyncio.to_thread(self._store_with_dataset, tenant, dataset_id)
        else:
            store = await asyncio.to_thread(self.store, tenant, create=True)
        target = await asyncio.to_thread(self._access.write_target, store, user, name, dataset_id)
        return await asyncio.to_thread(
            ingest,
            store,
            self.embedder,
            self.config,
            items,
            dataset_id=target.dataset_id,
            dataset_name=target.dataset_name,
            show_progress=show_progress,
        )

    def _store_with_dataset(self, tenant: str, dataset_id: str) -> TenantStore:
        try:
            return self.store(tenant)
        except RecallPreconditionError:
            raise DatasetNotFoundError(
                f"Unknown dataset id {dataset_id!r}: nothing has been remembered in tenant "
                f"{tenant!r} yet; pass dataset_name= to create a dataset."
            ) from None

    async def recall(
        self,
        query_text: str,
        query_type: SearchType | str | None = None,
        *,
        datasets: Sequence[str] | str | None = None,
        dataset_ids: Sequence[str] | None = None,
        top_k: int = 15,
        auto_route: bool = True,
        session_id: str | None = None,
        only_context: bool = False,
        system_prompt: str | None = None,
        system_prompt_path: str | Path | None = None,
        node_name: Sequence[str] | None = None,
        node_name_filter_operator: str = "OR",
        wide_search_top_k: int | None = None,
        triplet_distance_penalty: float | None = None,
        feedback_influence: float = 0.0,
        verbose: bool = False,
        retriever_specific_config: dict[str, Any] | None = None,
        response_model: type | None = None,
        include_references: bool = False,
        user: Any = None,
        tenant_id: str | None = None,
        scope: Sequence[str] | None = None,
    ) -> list[RecallResult]:
        """Ask memory a question and get ranked, source-tagged results, best first.

        Without ``query_type`` the rule-based router picks the search type (and
        every result reports its decision in ``metadata["route"]``).

        Raises:
            InvalidInputError: an empty query or an invalid option.
            InputTooLargeError: a query over ``config.max_query_chars``.
            RecallPreconditionError: nothing has been remembered in the tenant.
            DatasetNotFoundError: a dataset in ``datasets`` does not exist.
            SearchTypeNotImplementedError: the search type is not available yet.
            UnsupportedSearchTypeError: a Cypher type while ALLOW_CYPHER_QUERY is false.
        """
        request = RecallRequest.build(
            query_text=query_text,
            query_type=query_type,
            datasets=datasets,
            dataset_ids=dataset_ids,
            top_k=top_k,
            auto_route=auto_route,
            session_id=session_id,
            only_context=only_context,
            system_prompt=system_prompt,
            system_prompt_path=system_prompt_path,
            node_name=node_name,
            node_name_filter_operator=node_name_filter_operator,
            wide_search_top_k=wide_search_top_k,
            triplet_distance_penalty=triplet_distance_penalty,
            feedback_influence=feedback_influence,
            verbose=verbose,
            retriever_specific_config=retriever_specific_config,
            response_model=response_model,
            include_references=include_references,
            user=user,
            tenant_id=tenant_id,
            scope=scope,
        )
        check_query_size(request.query_text, limit=self.config.max_query_chars)
        return await self._pipeline.run(request)

    def trace(
        self,
        session_id: str,
        *,
        name: str | None = None,
        user: User | str | None = None,
        tenant_id: str | None = None,
    ) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """A decorator that records each call of a function (sync or async) in a
        session: its name, arguments, return value or error, duration and time.
        ``recall(..., scope=["trace"], session_id=...)`` then searches them.

        Arguments and values are stored as JSON of at most
        ``config.trace_max_chars`` characters, with the values of secret-named
        arguments and keys (``config.trace_redact``) and credential-shaped strings
        replaced by ``"[redacted]"``. Recording never changes what the function
        returns or raises.

        Raises:
            InvalidInputError: a bad session_id or name.
            UserNotFoundError: an unknown ``user``.
        """
        session = check_session_id(session_id)
        if session is None:
            raise InvalidInputError("trace() needs a session_id: the session the calls belong to.")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InvalidInputError(f"name must be a non-empty string or None, got {name!r}.")
        tenant = self._tenant(tenant_id)
        owner = self.identity.resolve_user(tenant, user).id
        key = self.config.llm_api_key
        redactor = Redactor(
            self.config.trace_redact,
            max_chars=self.config.trace_max_chars,
            secret_values=[key.get_secret_value()] if key is not None else [],
        )
        target = TraceTarget(self.traces, redactor, tenant, session, owner)
        return traced(target, name.strip() if name else None)

    def _scope(
        self, store: TenantStore, names: tuple[str, ...] | None, ids: tuple[str, ...] | None
    ) -> tuple[str, ...]:
        return resolve_dataset_ids(store.tenant_id, store.datasets(), names, ids)

    async def forget(
        self,
        *,
        data_id: str | Sequence[str] | None = None,
        dataset_name: str | None = None,
        tenant_id: str | None = None,
        user: User | str | None = None,
    ) -> int:
        """Delete data items (by id) or a whole dataset; return the chunks removed.

        As ``user`` (default: the default user): data items of datasets it may
        write to, or one of its own datasets by name.

        Raises:
            InvalidInputError: neither or both of ``data_id`` and ``dataset_name``, an
                empty list, an id that is not a string, or an unknown id (nothing is
                deleted then).
            DatasetNotFoundError: the dataset is not one of the user's own.
            PermissionDeniedError: a data item in a dataset the user may not write to
                (nothing is deleted).
        """
        if (data_id is None) == (dataset_name is None):
            raise InvalidInputError("forget() needs exactly one of data_id or dataset_name.")
        ids = check_ids(data_id, what="data_id") if data_id is not None else None
        name = check_name(dataset_name, what="dataset_name") if dataset_name is not None else None
        tenant = self._tenant(tenant_id)
        store = await asyncio.to_thread(self.store, tenant)
        return await asyncio.to_thread(self._forget, store, ids, name, user)

    def _forget(
        self,
        store: TenantStore,
        ids: tuple[str, ...] | None,
        name: str | None,
        user: User | str | None = None,
    ) -> int:
        with store.write_lock:
            dataset_id = self._access.forgettable(store, user, ids, name)
            if name is not None:
                assert dataset_id is not None
                members = [d["id"] for d in store.graph.documents(dataset_id)]
                removed = store.forget(members)
                store.delete_dataset(dataset_id)
                self._access.dataset_dropped(store.tenant_id, dataset_id)
                return removed
            assert ids is not None
            known = store.graph.document_ids(ids)
            unknown = [i for i in ids if i not in known]
            if unknown:
                raise InvalidInputError(
                    f"data_id: unknown data id(s) {unknown} in tenant {store.tenant_id!r}; "
                    "nothing was deleted. List the ids with `recall-engine items`."
                )
            return store.forget(list(ids))

    # users, dataset permissions and session feedback (recall_engine.identity, .sessions)

    async def create_user(
        self, name: str, *, tenant_id: str | None = None, exist_ok: bool = False
    ) -> User:
        """Add a user to a tenant; pass it (or its ``id``) as ``user=`` to act as it.

        Raises:
            InvalidInputError: a bad name, or one that is taken (unless ``exist_ok``).
        """
        if not isinstance(exist_ok, bool):
            raise InvalidInputError(f"exist_ok must be True or False, got {exist_ok!r}.")
        return await asyncio.to_thread(
            self.identity.create_user, self._tenant(tenant_id), name, exist_ok=exist_ok
        )

    async def users(self, *, tenant_id: str | None = None) -> list[User]:
        """Every user of a tenant, oldest first."""
        return await asyncio.to_thread(self.identity.users, self._tenant(tenant_id))

    async def grant(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str = "read",
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Share a dataset: ``to`` may then read it (``"write"``: also remember into it
        with ``dataset_id=`` and forget its items). Only its owner ``by`` may share.

        Raises:
            DatasetNotFoundError: an unknown dataset id.
            PermissionDeniedError: ``by`` does not own the dataset.
            UserNotFoundError: an unknown ``to`` or ``by``.
        """
        store = await asyncio.to_thread(self.store, self._tenant(tenant_id))
        await asyncio.to_thread(self._access.grant, store, dataset_id, to, permission, by)

    async def revoke(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str | None = None,
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Take back what was granted ``to`` a user: everything (``permission=None``),
        or only ``"write"``.

        Raises:
            DatasetNotFoundError, PermissionDeniedError, UserNotFoundError: as ``grant``.
            InvalidInputError: ``permission`` other than None or ``"write"``.
        """
        store = await asyncio.to_thread(self.store, self._tenant(tenant_id))
        await asyncio.to_thread(self._access.revoke, store, dataset_id, to, permission, by)

    async def datasets(
        self, *, user: User | str | None = None, tenant_id: str | None = None
    ) -> list[DatasetAccess]:
        """The datasets ``user`` can read (name, id, owner, permission), own ones first;
        [] when nothing was remembered in the tenant."""
        tenant = self._tenant(tenant_id)
        try:
            store = await asyncio.to_thread(self.store, tenant)
        except RecallPreconditionError:
            await asyncio.to_thread(self.identity.resolve_user, tenant, user)
            return []
        return await asyncio.to_thread(self._access.datasets, store, user)

    async def add_feedback(
        self,
        session_id: str,
        qa_id: str,
        *,
        score: int,
        text: str | None = None,
        user: User | str | None = None,
        tenant_id: str | None = None,
    ) -> ResponseQAEntry:
        """Rate a session answer (``metadata["qa_id"]`` of the answer) from 1 to 5.
        With ``feedback_influence`` > 0, recall() ranks what well-rated answers used
        higher and what badly rated ones used lower.

        Raises:
            InvalidInputError: a score outside 1..5, or no such entry in the user's session.
        """
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise InvalidInputError(f"score must be an integer from 1 to 5, got {score!r}.")
        if text is not None and not isinstance(text, str):
            raise InvalidInputError(f"text must be a string or None, got {type(text).__name__}.")
        tenant = self._tenant(tenant_id)
        who = await asyncio.to_thread(self.identity.resolve_user, tenant, user)
        record = await asyncio.to_thread(
            self.sessions.set_feedback,
            tenant,
            who.id,
            str(session_id),
            str(qa_id),
            score=score,
            text=text,
        )
        return record.entry()

    async def visualize_graph(
        self,
        path: str | Path,
        dataset_name: str | None = None,
        *,
        tenant_id: str | None = None,
    ) -> Path:
        """Write the tenant's knowledge graph (or one dataset's) as a self-contained
        HTML page that works offline; return its path.

        Raises:
            InvalidInputError: ``path`` is empty, not a path, a folder, or cannot be
                written; a bad ``dataset_name``.
            RecallPreconditionError: nothing has been remembered in the tenant.
            DatasetNotFoundError: ``dataset_name`` does not exist.
        """
        from recall_engine.graph.visualize import render_graph_html

        target = _output_path(path, what="path")
        names = (
            (check_name(dataset_name, what="dataset_name"),) if dataset_name is not None else None
        )
        store = await asyncio.to_thread(self.store, self._tenant(tenant_id))
        scope = self._scope(store, names, None)
        entities = await asyncio.to_thread(store.graph.entities, scope)
        relations = await asyncio.to_thread(store.graph.relations, scope)
        title = f"recall-engine: {store.tenant_id}" + (f" / {names[0]}" if names else "")
        page = await asyncio.to_thread(render_graph_html, entities, relations, title=title)
        await asyncio.to_thread(_write_page, target, page)
        return target

    async def list_datasets(self, *, tenant_id: str | None = None) -> dict[str, str]:
        """Dataset name -> id for a tenant (empty when nothing was remembered)."""
        tenant = self._tenant(tenant_id)
        try:
            store = await asyncio.to_thread(self.store, tenant)
        except RecallPreconditionError:
            return {}
        return {name: dataset_id for dataset_id, name in store.datasets().items()}

    async def list_items(
        self, *, dataset_name: str | None = None, tenant_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The data items of a tenant (or of one dataset), oldest first: ``data_id``,
        ``name``, ``dataset_name``, ``kind``, ``chunk_count``, ``created_at``.

        Raises:
            InvalidInputError: a bad ``dataset_name`` or ``tenant_id``.
            DatasetNotFoundError: ``dataset_name`` does not exist.
        """
        name = check_name(dataset_name, what="dataset_name") if dataset_name is not None else None
        tenant = self._tenant(tenant_id)
        try:
            store = await asyncio.to_thread(self.store, tenant)
        except RecallPreconditionError:
            if name is not None:
                raise
            return []
        scope = self._scope(store, (name,), None) if name is not None else (None,)
        rows: list[dict[str, Any]] = []
        for dataset_id in scope:
            rows += await asyncio.to_thread(store.graph.documents, dataset_id)
        keys = ("name", "dataset_name", "kind", "chunk_count", "created_at")
        items = [{"data_id": r["id"], **{k: r.get(k) for k in keys}} for r in rows]
        return sorted(items, key=lambda i: (str(i["created_at"]), i["data_id"]))

    # HydraDB-style tenant API (recall_engine.tenants); thin delegations.

    @property
    def tenants(self) -> TenantAPI:
        """The multi-tenant recall API over this engine (created on first use)."""
        with self._open_lock:
            api = getattr(self, "_tenant_api", None)
            if api is None:
                from recall_engine.tenants import TenantAPI

                api = self._tenant_api = TenantAPI(self)
            return api

    async def create_tenant(
        self, tenant_id: str, metadata_schema: Sequence[Any] | None = None
    ) -> Any:
        """Create a tenant; ``metadata_schema`` declares its filterable metadata fields.
        See ``TenantAPI.create_tenant``."""
        return await self.tenants.create_tenant(tenant_id, metadata_schema)

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[Any],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> Any:
        """Store memories in a sub-tenant. See ``TenantAPI.add_memory``."""
        return await self.tenants.add_memory(
            tenant_id, memories, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[Any] = (),
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> Any:
        """Store documents in a sub-tenant's knowledge. See ``TenantAPI.upload_knowledge``."""
        return await self.tenants.upload_knowledge(
            tenant_id, sources, sub_tenant_id=sub_tenant_id, upsert=upsert
        )

    async def full_recall(self, request: Any = None, **fields: Any) -> Any:
        """Hybrid search of knowledge; returns a ``RetrievalResult``."""
        return await self.tenants.full_recall(request, **fields)

    async def recall_preferences(self, request: Any = None, **fields: Any) -> Any:
        """Hybrid search of memories; returns a ``RetrievalResult``."""
        return await self.tenants.recall_preferences(request, **fields)

    async def boolean_recall(self, tenant_id: str, query: str, **options: Any) -> Any:
        """Exact lexical search (or / and / phrase). See ``TenantAPI.boolean_recall``."""
        return await self.tenants.boolean_recall(tenant_id, query, **options)

    async def drop_tenant(self, tenant_id: str) -> None:
        """Close a tenant's store and delete its folder (everything it holds)."""
        import shutil

        tenant = self._tenant(tenant_id)
        with self._open_lock:
            store = self._stores.pop(tenant, None)
            if store is not None:
                store.close()
        await asyncio.to_thread(shutil.rmtree, self.config.tenant_dir(tenant), True)


def _output_path(path: object, *, what: str) -> Path:
    """A file path to write to, checked before any work is done.

    Raises:
        InvalidInputError: not a str/Path, empty, or an existing folder.
    """
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise InvalidInputError(f"{what} must be the path of an .html file to write, got {path!r}.")
    target = Path(path).expanduser()
    if target.is_dir():
        raise InvalidInputError(
            f"{what} {str(target)!r} is a folder; pass a file path such as "
            f"{str(target / 'graph.html')!r}."
        )
    return target


def _write_page(target: Path, page: str) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(
            f"path {str(target)!r} cannot be written: {exc.strerror or exc}; pass a "
            "writable location."
        ) from exc
