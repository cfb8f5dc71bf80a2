"""What the server needs of an engine: a typed port, so that the routes are checked
against ``RecallEngine`` (which satisfies it) rather than held untyped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from recall_engine.memory import Memory

if TYPE_CHECKING:
    from recall_engine.tenants import TenantAPI


class EnginePort(Memory, Protocol):
    """A ``Memory`` (served as ``/api/v1/remember``, ``/api/v1/recall`` and
    ``/api/v1/engine/{method}``) with the tenant API the HydraDB routes serve and
    the tenant names keys are checked against."""

    @property
    def tenants(self) -> TenantAPI: ...

    def tenant_name(self, tenant_id: str | None) -> str: ...
