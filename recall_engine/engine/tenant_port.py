"""``TenantPort``: what the tenant API (``recall_engine.tenants``) may do with the
engine, and nothing more. The tenant API searches through recall()'s pipeline
(``run``), reads through ``TenantReader`` and writes through ``remember`` /
``forget``; it never holds a store, so it cannot reach past the read API into the
graph or the vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, Unpack

from recall_engine.config import RecallConfig
from recall_engine.core.models import RememberResult
from recall_engine.embedding import Embedder
from recall_engine.memory import ForgetOptions, MemoryWrites, RememberOptions
from recall_engine.pipeline.request import RecallRequest
from recall_engine.pipeline.run import RecallPipeline
from recall_engine.pipeline.state import RecallState
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.tenant_reader import TenantReader
from recall_engine.storage.expiry import forget_expired
from recall_engine.storage.tenant import TenantStore


class _Engine(MemoryWrites, Protocol):
    """The parts of ``RecallEngine`` the port is built on: ``Memory``'s writes and
    its stores."""

    config: RecallConfig
    embedder: Embedder

    @property
    def pipeline(self) -> RecallPipeline: ...

    def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore: ...

    async def drop_tenant(self, tenant_id: str) -> None: ...

    def close_store(self, tenant_id: str) -> None: ...


class TenantPort:
    """The engine, as the tenant API sees it (``tenants.base.EnginePort``)."""

    def __init__(self, engine: _Engine) -> None:
        self._engine = engine

    @property
    def config(self) -> RecallConfig:
        return self._engine.config

    @property
    def embedder(self) -> Embedder:
        return self._engine.embedder

    def open(self, tenant: str) -> None:
        """Open the tenant's store, creating it when it does not exist. Blocking."""
        self._engine.store(tenant, create=True)

    def datasets(self, tenant: str) -> dict[str, str]:
        """Dataset id -> name, of the tenant's store. Blocking."""
        return self._engine.store(tenant, create=True).datasets()

    def reader(
        self, tenant: str, dataset_ids: Sequence[str], *, where: ChunkFilter | None = None
    ) -> TenantReader:
        """A reader of these datasets; ``where`` binds its chunk searches. Blocking."""
        return TenantReader(self._engine.store(tenant, create=True), dataset_ids, where=where)

    def forget_expired(self, tenant: str) -> None:
        """Forget the tenant's expired items now. Blocking."""
        forget_expired(self._engine.store(tenant, create=True))

    async def run(self, request: RecallRequest) -> RecallState:
        """Run the engine's recall() pipeline for ``request`` (its own stages, any a
        caller inserted included)."""
        return await self._engine.pipeline.run_state(request)

    async def remember(self, data: object, **options: Unpack[RememberOptions]) -> RememberResult:
        return await self._engine.remember(data, **options)

    async def forget(self, **options: Unpack[ForgetOptions]) -> int:
        return await self._engine.forget(**options)

    async def drop_tenant(self, tenant_id: str) -> None:
        await self._engine.drop_tenant(tenant_id)

    def close_store(self, tenant: str) -> None:
        """Close the tenant's open store (it opens again on next use). Blocking."""
        self._engine.close_store(tenant)
