"""``Memory``: the engine's public async API, one Protocol for every engine.

``RecallEngine`` (embedded) and ``RemoteRecallEngine`` (over HTTP) both satisfy it,
and mypy checks that they do (``recall_engine.api``). Code that only remembers,
recalls and forgets takes a ``Memory`` and works with either; the HTTP server
(``server.port.ServedEngine``) and the tenant API (``tenants.base.EnginePort``,
through ``MemoryWrites``) build their ports on it instead of spelling out the
methods again.

The keyword options of each method are declared once: recall()'s in
``core.recall_options.RecallOptions``, remember()'s and forget()'s here
(``RememberOptions``, ``ForgetOptions``), which mypy holds ``RecallEngine``'s
explicit signatures to.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, TypedDict, Unpack

from recall_engine.core.facts import Fact
from recall_engine.core.models import RecallResult, RememberResult, ResponseQAEntry
from recall_engine.core.recall_options import RecallOptions
from recall_engine.core.search_types import SearchType
from recall_engine.identity.models import DatasetAccess, User


class RememberOptions(TypedDict, total=False):
    """remember()'s keyword options (``RecallEngine.remember`` documents them)."""

    dataset_name: str
    metadata: dict[str, object] | None
    tenant_id: str | None
    show_progress: bool | None
    user: User | str | None
    dataset_id: str | None
    node_set: Sequence[str] | None


class ItemInfo(TypedDict):
    """One data item as ``list_items`` lists it."""

    data_id: str
    name: str
    dataset_name: str
    kind: str
    chunk_count: int
    created_at: str


class ForgetOptions(TypedDict, total=False):
    """forget()'s keyword options: exactly one of ``data_id`` and ``dataset_name``."""

    data_id: str | Sequence[str] | None
    dataset_name: str | None
    tenant_id: str | None
    user: User | str | None


class MemoryWrites(Protocol):
    """The writes of ``Memory``: what the tenant API may do besides reading."""

    async def remember(self, data: object, **options: Unpack[RememberOptions]) -> RememberResult:
        """Store documents, files, folders or conversations in a dataset."""
        ...

    async def forget(self, **options: Unpack[ForgetOptions]) -> int:
        """Delete data items (by id) or a whole dataset; return the chunks removed."""
        ...


class Memory(MemoryWrites, Protocol):
    """The engine's public async API (``RecallEngine``, ``RemoteRecallEngine``)."""

    async def recall(
        self,
        query_text: str,
        query_type: SearchType | str | None = None,
        **options: Unpack[RecallOptions],
    ) -> list[RecallResult]:
        """Ask memory a question and get ranked, source-tagged results, best first."""
        ...

    async def facts(
        self,
        subject: str,
        *,
        as_of: datetime | str | None = None,
        history: bool = True,
        dataset_name: str | None = None,
        datasets: Sequence[str] | str | None = None,
        user: User | str | None = None,
        tenant_id: str | None = None,
    ) -> list[Fact]:
        """What memory holds about ``subject``, each fact with its validity."""
        ...

    async def list_datasets(self, *, tenant_id: str | None = None) -> dict[str, str]:
        """Dataset name -> id for a tenant."""
        ...

    async def list_items(
        self, *, dataset_name: str | None = None, tenant_id: str | None = None
    ) -> list[ItemInfo]:
        """The data items of a tenant (or of one dataset), oldest first."""
        ...

    async def datasets(
        self, *, user: User | str | None = None, tenant_id: str | None = None
    ) -> list[DatasetAccess]:
        """The datasets ``user`` can read, own ones first."""
        ...

    async def create_user(
        self, name: str, *, tenant_id: str | None = None, exist_ok: bool = False
    ) -> User:
        """Add a user to a tenant."""
        ...

    async def users(self, *, tenant_id: str | None = None) -> list[User]:
        """Every user of a tenant, oldest first."""
        ...

    async def grant(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str = "read",
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Share a dataset with a user."""
        ...

    async def revoke(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str | None = None,
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Take back what was granted to a user."""
        ...

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
        """Rate a session answer from 1 to 5."""
        ...
