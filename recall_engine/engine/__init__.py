"""RecallEngine: the embedded entry point (remember, recall, forget)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from recall_engine.config import RecallConfig
from recall_engine.core.errors import (
    ConfigError,
    InvalidInputError,
    RecallPreconditionError,
)
from recall_engine.core.limits import check_query_size
from recall_engine.core.models import RecallResult
from recall_engine.core.recall_options import RecallOptions, RecallParams, recall_signature
from recall_engine.core.search_types import SearchType
from recall_engine.core.validation import check_name
from recall_engine.embedding import Embedder, make_embedder
from recall_engine.engine.access import AccessMixin
from recall_engine.engine.facts import FactsMixin
from recall_engine.engine.listing import ListingMixin
from recall_engine.engine.routing import build_router
from recall_engine.engine.tenants import TenantsMixin
from recall_engine.engine.tracing import TracingMixin
from recall_engine.engine.write_threads import WriteThreads
from recall_engine.engine.writes import WritesMixin
from recall_engine.graph.supersession import stamp
from recall_engine.identity import IdentityRegistry
from recall_engine.identity.service import AccessControl
from recall_engine.ingest.writer import writers_for
from recall_engine.llm.completion import resolve_llm_config
from recall_engine.pipeline.request import RecallRequest
from recall_engine.pipeline.run import RecallPipeline
from recall_engine.pipeline.scope import resolve_dataset_ids
from recall_engine.sessions import SessionStore
from recall_engine.sessions.summaries import TraceSummaries
from recall_engine.sessions.traces import TraceStore
from recall_engine.state.redis_cache import RedisQueryCache, SharedQueryEmbedder
from recall_engine.state.redis_store import RedisStore
from recall_engine.state.store import open_state, registry_source
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.store_drop import drop_store
from recall_engine.storage.store_lock import hold_data_dir
from recall_engine.storage.tenant import TenantStore
from recall_engine.storage.vector_location import SharedVectors
from retrievers import load_entry_points

if TYPE_CHECKING:
    from recall_engine.remote import RemoteRecallEngine
    from recall_engine.tenants import TenantAPI


class RecallEngine(WritesMixin, AccessMixin, FactsMixin, ListingMixin, TenantsMixin, TracingMixin):
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
        StoreError: the Postgres server of ``state_url`` cannot be reached.
        ConfigError: a bad configuration value, a data dir that cannot be created, or an
            installed ``recall_engine.retrievers`` entry point that is no retriever.
    """

    def __init__(
        self,
        data_dir: str | Path | None = None,
        *,
        config: RecallConfig | None = None,
        embedder: Embedder | None = None,
        **overrides: object,
    ) -> None:
        if data_dir is not None:
            overrides["data_dir"] = data_dir  # RecallConfig checks and converts it
        if config is None:
            config = RecallConfig.load(**overrides)
        elif overrides:
            config = RecallConfig.model_validate({**config.model_dump(), **overrides})
        self.config = config
        load_entry_points()  # installed packages' search types, before rules may name them
        # Checked before the lock, so that a bad option changes nothing on disk.
        self.embedder: Embedder = embedder or make_embedder(config)
        self.router = build_router(config)
        # Users, grants, tenants, keys and sessions: SQLite files in the data dir,
        # or one Postgres schema shared with other replicas (config.state_url).
        # Opened before the lock too: a bad or unreachable state_url changes nothing.
        self._redis = RedisStore(config.redis_url) if config.redis_url else None
        self._graph_server: FalkorServer | None = None
        try:
            self.state = open_state(config)
        except BaseException:
            if self._redis is not None:
                self._redis.close()
            raise
        # Each tenant's graph: a graph on this FalkorDB server (config.graph_url),
        # else Kuzu in the tenant's folder. Checked here, so a bad server fails now.
        try:
            if config.graph_url is not None:
                self._graph_server = FalkorServer(config.graph_url)
        except BaseException:
            self._close_shared()
            raise
        self._writers = writers_for(config, self.state)  # one replica writes a tenant at once
        if self._redis is not None:  # query vectors shared with the other replicas
            self.embedder = SharedQueryEmbedder(self.embedder, RedisQueryCache(self._redis))
        # Every store below (graphs, vectors, identity, tenants, sessions) is
        # written only through an engine that holds the data dir.
        try:
            self._hold = hold_data_dir(config.data_dir)
        except BaseException:
            self._close_shared()
            raise
        self._stores: dict[str, TenantStore] = {}
        self._shared_vectors = (
            None
            if config.vector_uri is None
            else SharedVectors(
                config.vector_uri, config.vector_options(), refresh_s=config.vector_refresh_s
            )
        )
        self._open_lock = threading.Lock()
        self._closed = False
        self._write_threads = WriteThreads()
        self._tenant_api: TenantAPI | None = None
        try:
            source = registry_source(config, self.state)
            self.identity = IdentityRegistry(source)
            self.sessions = SessionStore(source, ttl_s=config.session_ttl_days * 86400)
            self.traces = TraceStore(config.data_dir, ttl_s=config.session_ttl_days * 86400)
            self.trace_summaries = TraceSummaries(self.traces, resolve_llm_config(config))
            self._access = AccessControl(self.identity)
            self._pipeline = RecallPipeline(self)
        except BaseException:
            self._hold.release()
            self._close_shared()
            raise

    def _close_shared(self) -> None:
        self.state.close()
        if self._redis is not None:
            self._redis.close()
        if self._graph_server is not None:
            self._graph_server.close()

    @staticmethod
    def connect(url: str, *, api_key: str | None = None, **options: Any) -> RemoteRecallEngine:
        """This engine's API over a running ``recall-engine serve``.

        Args:
            url: the server's base URL (``http://127.0.0.1:8000``).
            api_key: a bearer key of the server (None when its auth is off).
            **options: further options of ``RemoteRecallEngine`` (``timeout_s``).

        Returns:
            A ``RemoteRecallEngine``: the same async API, models and exception classes.

        Raises:
            InvalidInputError: a URL that is not http(s), an empty key or a bad option.
        """
        from recall_engine.remote import RemoteRecallEngine

        return RemoteRecallEngine(url, api_key=api_key, **options)

    async def __aenter__(self) -> RecallEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release every open store and the data dir (another process may then open it).

        A ``remember()`` or ``forget()`` still running is stopped first, and close()
        waits for its worker thread to end before it closes a store: at the write's
        next safe point (one embedding window at most; nothing of it is stored and
        its caller gets ``InvalidInputError``), or after its commit when that had
        begun. ``async with RecallEngine(...) as engine:`` closes it on the way out.
        """
        with self._open_lock:
            self._closed = True  # no store opens from now on
        self._write_threads.close()  # outside the lock: a write may be opening a store
        with self._open_lock:
            try:
                for store in self._stores.values():
                    store.close()
                self._stores.clear()
                self.identity.close()
                self.sessions.close()
                self.trace_summaries.close()
                self.traces.close()
                if self._tenant_api is not None:
                    self._tenant_api.registry.close()
                self._close_shared()
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

    def open_store(self, tenant_id: str | None = None) -> TenantStore | None:
        """The tenant's store if this engine has it open already, else None.

        Opens nothing and reads no file; None once the engine is closed.

        Raises:
            InvalidInputError: not a valid tenant name.
        """
        tenant = self._tenant(tenant_id)
        with self._open_lock:
            return None if self._closed else self._stores.get(tenant)

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
            if not create and not TenantStore.exists(root, self._shared_vectors):
                raise RecallPreconditionError(
                    f"Nothing has been remembered in tenant {tenant!r} yet; call remember() first."
                )
            try:
                store = TenantStore.open(
                    root,
                    tenant,
                    model_id=self.embedder.model_id,
                    dimension=lambda: self.embedder.dimension,
                    shared=self._shared_vectors,
                    graph_server=self._graph_server,
                    stamp=stamp,
                )
            except OSError as exc:  # the data dir itself: a file in the way, no permission
                raise ConfigError(  # no path: the message may reach an HTTP client
                    f"The data dir cannot hold the store of tenant {tenant!r}: "
                    f"{exc.strerror or type(exc).__name__}. Pass a writable folder as data_dir "
                    "(or $RECALL_ENGINE_DATA_DIR)."
                ) from exc
            self._stores[tenant] = store
            return store

    @recall_signature
    async def recall(
        self,
        query_text: str,
        query_type: SearchType | str | None = None,
        **options: Unpack[RecallOptions],
    ) -> list[RecallResult]:
        """Ask memory a question and get ranked, source-tagged results, best first.

        Without ``query_type`` the rule-based router picks the search type (and
        every result reports its decision in ``metadata["route"]``). The options are
        declared, with their defaults and meaning, in ``core.recall_options.RecallOptions``.

        Args:
            query_text: the question.
            query_type: the search type (a ``SearchType`` or its name); None lets the
                router pick one (unless ``auto_route=False``).
            **options: recall()'s keyword options (``datasets``, ``top_k``,
                ``session_id``, ``only_context``, ...).

        Returns:
            The ranked, source-tagged results, best first: an answer (unless
            ``only_context``) and the context it was built from.

        Raises:
            InvalidInputError: an empty query or an invalid option.
            TypeError: an unknown keyword.
            InputTooLargeError: a query over ``config.max_query_chars``.
            RecallPreconditionError: nothing has been remembered in the tenant.
            DatasetNotFoundError: a dataset in ``datasets`` does not exist.
            SearchTypeNotImplementedError: the search type is not available yet.
            UnsupportedSearchTypeError: a Cypher type while ALLOW_CYPHER_QUERY is false.
        """
        return await self.recall_with(RecallParams.check(query_text, query_type, options))

    @property
    def pipeline(self) -> RecallPipeline:
        """The stages every recall() of this engine runs; ``insert_stage`` adds one."""
        return self._pipeline

    async def recall_with(self, params: object) -> list[RecallResult]:
        """``recall`` with its arguments validated in one ``RecallParams``."""
        request = RecallRequest.build(params)
        check_query_size(request.query_text, limit=self.config.max_query_chars)
        return await self._pipeline.run(request)

    def _scope(
        self, store: TenantStore, names: tuple[str, ...] | None, ids: tuple[str, ...] | None
    ) -> tuple[str, ...]:
        return resolve_dataset_ids(store.tenant_id, store.datasets(), names, ids)

    @property
    def tenants(self) -> TenantAPI:
        """The multi-tenant recall API over this engine (created on first use)."""
        with self._open_lock:
            if self._tenant_api is None:
                from recall_engine.engine.tenant_port import TenantPort
                from recall_engine.tenants import TenantAPI
                from recall_engine.tenants.registry import TenantRegistry

                registry = TenantRegistry(registry_source(self.config, self.state))
                self._tenant_api = TenantAPI(TenantPort(self), registry)
            return self._tenant_api

    def close_store(self, tenant_id: str) -> None:
        """Close a tenant's open store, if any (it opens again on next use)."""
        tenant = self._tenant(tenant_id)
        with self._open_lock:
            store = self._stores.pop(tenant, None)
            if store is not None:
                store.close()

    async def drop_tenant(self, tenant_id: str) -> None:
        """Close a tenant's store and delete everything it holds.

        Its folder goes, its shared graph and vector tables (``storage.store_drop``),
        and then its sessions (cached answers), feedback tallies and agent traces.

        Args:
            tenant_id: the tenant to delete.
        """
        tenant = self._tenant(tenant_id)
        self.close_store(tenant)
        root = self.config.tenant_dir(tenant)
        shared, server = self._shared_vectors, self._graph_server
        await asyncio.to_thread(drop_store, root, shared=shared, graph_server=server)
        await asyncio.to_thread(self.sessions.drop_tenant, tenant)
        await asyncio.to_thread(self.traces.drop_tenant, tenant)
