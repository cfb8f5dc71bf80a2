"""The tenant API's base: the engine port it works through (readers, recall()'s
pipeline, remember / forget, expiry; never a store) and what every part of it
shares: the tenant registry, the tenant's engine name, a sub-tenant's dataset and a
filtered reader."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from recall_engine.config import RecallConfig
from recall_engine.core.hydra import (
    DEFAULT_SUB_TENANT,
)
from recall_engine.core.validation import dataset_id_for
from recall_engine.embedding import Embedder
from recall_engine.memory import MemoryWrites
from recall_engine.pipeline.request import RecallRequest
from recall_engine.pipeline.state import RecallState
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.batching import QueryBatcher
from recall_engine.tenants.ids import dataset_name
from recall_engine.tenants.registry import TenantRecord, TenantRegistry

Collection = Literal["kb", "mem"]


class EnginePort(MemoryWrites, Protocol):
    """What the tenant API needs of the engine (``engine.tenant_port.TenantPort``):
    readers to read, ``Memory``'s remember / forget to write, and no store. The
    blocking ones are called off the event loop."""

    @property
    def config(self) -> RecallConfig: ...

    @property
    def embedder(self) -> Embedder: ...

    def open(self, tenant: str) -> None: ...

    def datasets(self, tenant: str) -> dict[str, str]: ...

    def reader(
        self, tenant: str, dataset_ids: Sequence[str], *, where: ChunkFilter | None = None
    ) -> TenantReader: ...

    def forget_expired(self, tenant: str) -> None: ...

    async def run(self, request: RecallRequest) -> RecallState:
        """Run recall()'s pipeline for ``request`` (``RecallPipeline.run_state``)."""
        ...

    async def drop_tenant(self, tenant_id: str) -> None: ...

    def close_store(self, tenant: str) -> None: ...


class TenantBase:
    """The engine port, the registry and the query batcher of one ``TenantAPI``."""

    def __init__(self, engine: EnginePort, registry: TenantRegistry | None = None) -> None:
        self.engine = engine
        self.registry = registry or TenantRegistry(engine.config.data_dir)
        self._batcher = QueryBatcher(engine.embedder)
        self._made: dict[str, str] = {}  # store name -> created_at of the tenant it was opened for
        self._made_lock = threading.Lock()  # stores are opened from worker threads

    def _record(self, tenant_id: str) -> TenantRecord:
        return self.registry.get(tenant_id)

    async def _store(self, tenant_id: str) -> str:
        """The engine tenant (store name) of a HydraDB tenant, its store open."""
        return await asyncio.to_thread(self._open_store, tenant_id)

    def _open_store(self, tenant_id: str) -> str:
        """``_store``, blocking. A store this process opened for an earlier tenant of
        the same id (deleted and made again since, maybe by another replica) is
        closed first, so that none of its mirrors answers for the new tenant."""
        made = self._record(tenant_id).created_at
        name = self.registry.store_name(tenant_id)
        with self._made_lock:
            if self._made.setdefault(name, made) != made:
                self.engine.close_store(name)
                self._made[name] = made
        self.engine.open(name)
        return name

    def _dataset(self, store: str, collection: str, sub: str | None) -> tuple[str, str]:
        owner = self.registry.owner_of(store)
        sub_name = self.registry.sub_tenant_name(owner, sub or DEFAULT_SUB_TENANT)
        name = dataset_name(collection, sub_name)
        return name, dataset_id_for(store, name)

    async def _reader(
        self, tenant_id: str, collection: str, sub: str | None, where: ChunkFilter | None = None
    ) -> TenantReader:
        """A reader of one sub-tenant's collection; ``where`` binds its chunk searches.

        Opening the store, the expiry sweep and the reader are one trip to a worker
        thread (each trip costs about 60 us of CPU, and a request waits for a free
        worker each time under load)."""
        return await asyncio.to_thread(self._open_reader, tenant_id, collection, sub, where)

    def _open_reader(
        self, tenant_id: str, collection: str, sub: str | None, where: ChunkFilter | None
    ) -> TenantReader:
        return self._open_scope(tenant_id, collection, sub, where).reader

    async def _scope(
        self, tenant_id: str, collection: str, sub: str | None, where: ChunkFilter | None = None
    ) -> Scope:
        """The store, dataset and filtered reader of one sub-tenant's collection (one
        trip to a worker thread, as ``_reader``)."""
        return await asyncio.to_thread(self._open_scope, tenant_id, collection, sub, where)

    def _open_scope(
        self, tenant_id: str, collection: str, sub: str | None, where: ChunkFilter | None
    ) -> Scope:
        store = self._open_store(tenant_id)
        self.engine.forget_expired(store)  # nothing may cite them
        _, dataset_id = self._dataset(store, collection, sub)
        return Scope(
            store=store,
            dataset_id=dataset_id,
            reader=self.engine.reader(store, [dataset_id], where=where),
            exists=dataset_id in self.engine.datasets(store),
        )


@dataclass(frozen=True)
class Scope:
    """One sub-tenant's collection: its store, dataset and a reader bound to the
    request's filter; ``exists`` is False until something was added to it."""

    store: str
    dataset_id: str
    reader: TenantReader
    exists: bool
