"""A tenant's collections as the engine's datasets, for callers of ``recall()``.

HydraDB v2 names a tenant ``database`` and a sub-tenant ``collection``; both
spellings reach the same store and datasets (``tenants.base``), so a query through
``recall()`` over these datasets sees what v1's calls wrote.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.tenants.attribute_kinds import Attributes
from recall_engine.tenants.base import Collection
from recall_engine.tenants.ids import KNOWLEDGE, MEMORIES
from recall_engine.tenants.service import TenantAPI

KINDS: dict[str, tuple[Collection, ...]] = {
    "knowledge": (KNOWLEDGE,),
    "memory": (MEMORIES,),
    "all": (KNOWLEDGE, MEMORIES),
}


@dataclass(frozen=True)
class DatasetScope:
    store: str
    """The engine tenant (store name) of the HydraDB tenant, its store open."""
    dataset_ids: tuple[str, ...]
    """The datasets of the asked collections that exist (none yet: nothing to search)."""
    collection_of: dict[str, tuple[str, str]]
    """dataset id -> (sub-tenant id, "kb" / "mem")."""
    attributes: Attributes = field(default_factory=lambda: Attributes(()))
    """The tenant's declared metadata fields, which its filters may name."""


async def dataset_scope(
    api: TenantAPI, tenant_id: str, sub_tenant_ids: Sequence[str | None], kind: str
) -> DatasetScope:
    """The store and datasets that ``kind`` ("knowledge", "memory", "all") of the
    sub-tenants ``sub_tenant_ids`` (None: the default one) are kept in.

    Raises:
        TenantNotFoundError: no such tenant.
    """
    return await asyncio.to_thread(_scope, api, tenant_id, sub_tenant_ids, KINDS[kind])


def _scope(
    api: TenantAPI,
    tenant_id: str,
    sub_tenant_ids: Sequence[str | None],
    kinds: tuple[Collection, ...],
) -> DatasetScope:
    store = api._open_store(tenant_id)
    api.engine.forget_expired(store)  # nothing may cite them
    existing = api.engine.datasets(store)
    wanted: dict[str, tuple[str, str]] = {}
    for sub in dict.fromkeys(s or DEFAULT_SUB_TENANT for s in sub_tenant_ids):
        for kind in kinds:
            _, dataset_id = api._dataset(store, kind, sub)
            if dataset_id in existing:
                wanted[dataset_id] = (sub, kind)
    attributes = Attributes(api.registry.get(tenant_id).metadata_schema)
    return DatasetScope(store, tuple(wanted), wanted, attributes)
