"""What the server needs of an engine: a typed port, so that the routes are checked
against ``RecallEngine`` (which satisfies it) rather than held as ``Any``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from recall_engine.core.models import RecallResult, RememberResult
    from recall_engine.core.search_types import SearchType
    from recall_engine.tenants import TenantAPI


class EnginePort(Protocol):
    """The engine methods the HTTP routes call."""

    @property
    def tenants(self) -> TenantAPI: ...

    def tenant_name(self, tenant_id: str | None) -> str: ...

    async def recall(
        self, query_text: str, query_type: SearchType | str | None = None, *args: Any, **kw: Any
    ) -> list[RecallResult]: ...

    async def remember(self, data: Any, *args: Any, **kw: Any) -> RememberResult: ...
