"""The engine's users, dataset permissions and session feedback.

``recall_engine.identity`` and ``recall_engine.sessions`` behind ``RecallEngine``'s
methods.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from recall_engine.core.bounds import MAX_FEEDBACK_CHARS, MAX_ID_CHARS, check_length, shown
from recall_engine.core.errors import InvalidInputError, RecallPreconditionError
from recall_engine.core.models import ResponseQAEntry
from recall_engine.core.recall_checks import check_session_id
from recall_engine.core.validation import check_text
from recall_engine.identity import DatasetAccess, IdentityRegistry, User
from recall_engine.identity.service import AccessControl
from recall_engine.sessions import SessionStore

if TYPE_CHECKING:
    from recall_engine.storage.tenant import TenantStore


class AccessMixin:
    """Users, grants and feedback of a ``RecallEngine`` (mixed into it)."""

    identity: IdentityRegistry
    sessions: SessionStore
    _access: AccessControl

    if TYPE_CHECKING:

        def _tenant(self, tenant_id: str | None) -> str: ...

        def store(self, tenant_id: str | None = None, *, create: bool = False) -> TenantStore:
            """The open store of a tenant (``RecallEngine.store``)."""
            ...

    async def create_user(
        self, name: str, *, tenant_id: str | None = None, exist_ok: bool = False
    ) -> User:
        """Add a user to a tenant; pass it (or its ``id``) as ``user=`` to act as it.

        Args:
            name: the user's name, unique in the tenant.
            tenant_id: the tenant; None is the configured default tenant.
            exist_ok: return the user of that name when it exists instead of raising.

        Returns:
            The new (or, with ``exist_ok``, the existing) user.

        Raises:
            InvalidInputError: a bad name, or one that is taken (unless ``exist_ok``).
        """
        if not isinstance(exist_ok, bool):
            raise InvalidInputError(f"exist_ok must be True or False, got {exist_ok!r}.")
        return await asyncio.to_thread(
            self.identity.create_user, self._tenant(tenant_id), name, exist_ok=exist_ok
        )

    async def users(self, *, tenant_id: str | None = None) -> list[User]:
        """Every user of a tenant, oldest first.

        Args:
            tenant_id: the tenant; None is the configured default tenant.

        Returns:
            The tenant's users, its default user included once it exists.
        """
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
        """Share a dataset with another user of the tenant.

        ``to`` may then read it; with ``"write"`` also remember into it (``dataset_id=``)
        and forget its items. Only its owner may share it.

        Args:
            dataset_id: the dataset to share.
            to: the user (or its id) who gets the permission.
            permission: ``"read"`` or ``"write"``.
            by: the owner who shares it (a user or its id); None is the default user.
            tenant_id: the tenant; None is the configured default tenant.

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
        """Take back what was granted to a user: everything, or only ``"write"``.

        Args:
            dataset_id: the shared dataset.
            to: the user (or its id) who loses the permission.
            permission: None takes back everything; ``"write"`` leaves read access.
            by: the owner (a user or its id); None is the default user.
            tenant_id: the tenant; None is the configured default tenant.

        Raises:
            DatasetNotFoundError: an unknown dataset id.
            PermissionDeniedError: ``by`` does not own the dataset.
            UserNotFoundError: an unknown ``to`` or ``by``.
            InvalidInputError: ``permission`` other than None or ``"write"``.
        """
        store = await asyncio.to_thread(self.store, self._tenant(tenant_id))
        await asyncio.to_thread(self._access.revoke, store, dataset_id, to, permission, by)

    async def datasets(
        self, *, user: User | str | None = None, tenant_id: str | None = None
    ) -> list[DatasetAccess]:
        """The datasets a user can read, own ones first.

        Args:
            user: the user (or its id); None is the default user.
            tenant_id: the tenant; None is the configured default tenant.

        Returns:
            Name, id, owner and permission of each dataset; ``[]`` when nothing was
            remembered in the tenant.

        Raises:
            UserNotFoundError: an unknown ``user``.
        """
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
        """Rate a session answer from 1 to 5.

        The rating is tallied on the graph elements and chunks the answer used; with
        ``feedback_influence`` > 0, recall() ranks what well-rated answers used higher
        and what badly rated ones used lower.

        Args:
            session_id: the session the answer was given in (at most ``MAX_ID_CHARS``
                characters, as recall() takes it).
            qa_id: the answer's id (``metadata["qa_id"]`` of the answer; at most
                ``MAX_ID_CHARS`` characters).
            score: 1 (bad) to 5 (good).
            text: an optional comment kept with the rating (at most
                ``MAX_FEEDBACK_CHARS`` characters).
            user: the user (or its id) whose session it is; None is the default user.
            tenant_id: the tenant; None is the configured default tenant.

        Returns:
            The session entry with its feedback.

        Raises:
            InvalidInputError: a score outside 1..5, an id or text over its bound, or no
                such entry in the user's session.
        """
        session = check_session_id(session_id)
        if session is None:
            raise InvalidInputError("session_id is None; pass the session_id recall() was given.")
        if not isinstance(qa_id, str) or not qa_id.strip():
            raise InvalidInputError(
                f"qa_id must be the non-empty id of an answer, got {shown(qa_id)}."
            )
        check_length(
            qa_id, what="qa_id", limit=MAX_ID_CHARS, hint="Pass the answer's metadata['qa_id']."
        )
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise InvalidInputError(f"score must be an integer from 1 to 5, got {shown(score)}.")
        if text is not None:
            if not isinstance(text, str):
                raise InvalidInputError(
                    f"text must be a string or None, got {type(text).__name__}."
                )
            check_length(
                check_text(text, what="text"),
                what="text",
                limit=MAX_FEEDBACK_CHARS,
                hint="Keep the comment short; the score carries the rating.",
            )
        tenant = self._tenant(tenant_id)
        who = await asyncio.to_thread(self.identity.resolve_user, tenant, user)
        record = await asyncio.to_thread(
            self.sessions.set_feedback,
            tenant,
            who.id,
            session,
            qa_id,
            score=score,
            text=text,
        )
        return record.entry()
