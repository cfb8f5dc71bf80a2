"""``RemoteRecallEngine``: the embedded engine's async API over its HTTP server.

Same method names, arguments, return models and exception classes as
``RecallEngine``: both are a ``recall_engine.Memory``. ``RecallEngine.connect(url,
api_key=...)`` builds one. The API key travels only in the ``Authorization``
header: it is kept out of ``repr``, logs and error messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import Unpack, cast

import httpx
from pydantic import TypeAdapter

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.facts import Fact
from recall_engine.core.models import RecallResult, RememberResult, ResponseQAEntry
from recall_engine.core.recall_options import RecallOptions, RecallParams, recall_signature
from recall_engine.core.search_types import SearchType
from recall_engine.identity.models import DatasetAccess, User
from recall_engine.memory import ForgetOptions, ItemInfo, RememberOptions
from recall_engine.remote.pool import ConnectionPool
from recall_engine.remote.tenant_calls import RemoteTenantCalls
from recall_engine.remote.wire import data_to_wire, to_wire

DEFAULT_TIMEOUT_S = 60.0
_RESULTS = TypeAdapter(list[RecallResult])
_USERS = TypeAdapter(list[User])
_DATASETS = TypeAdapter(list[DatasetAccess])
_FACTS = TypeAdapter(list[Fact])


class RemoteRecallEngine(RemoteTenantCalls):
    """A recall engine served by ``recall-engine serve`` at ``url``.

    Every method raises what the embedded engine's method raises (the class the
    server names), and ``RemoteUnavailableError`` when the server cannot be reached
    or did not answer in time; ``RemoteAuthenticationError`` when it refuses the key.
    One connection pool serves every event loop and thread that calls it; close it
    with ``async with``, ``await aclose()`` or ``close()``.

    Args:
        url: the server's base URL (``http://127.0.0.1:8000``).
        api_key: a bearer key of the server (None when its auth is off).
        timeout_s: the limit for one call, connect included.
        transport: an ``httpx`` transport to send through instead of the network
            (tests, an in-process app); None uses the network.

    Raises:
        InvalidInputError: a URL that is not http(s), an empty ``api_key`` or a
            ``timeout_s`` that is not a positive number.
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise InvalidInputError(f"url must be an http(s) URL, got {url!r}.")
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise InvalidInputError("api_key must be a non-empty string or None.")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or timeout_s <= 0:
            raise InvalidInputError(f"timeout_s must be a positive number, got {timeout_s!r}.")
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        new_client = partial(
            httpx.AsyncClient,
            base_url=self.url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            transport=transport,
        )
        self._pool = ConnectionPool(new_client)

    def __repr__(self) -> str:
        return f"RemoteRecallEngine(url={self.url!r})"

    async def __aenter__(self) -> RemoteRecallEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # the engine API

    async def remember(self, data: object, **options: Unpack[RememberOptions]) -> RememberResult:
        """Store data on the server (``RecallEngine.remember``).

        Texts are sent as text, never read as paths; ``show_progress`` is ignored.

        Args:
            data: a text, a ``Document``, a ``Conversation``, or a list of them.
            **options: ``RecallEngine.remember``'s options (``dataset_name``, ...).

        Returns:
            What was stored: the data ids and the dataset.

        Raises:
            InvalidInputError: bad data or options, or a ``Path`` (read the file and
                send its text instead); nothing is stored.
            InputTooLargeError: an item over the server's ``max_item_chars``.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        options.pop("show_progress", None)
        result = await self._call("remember", data_to_wire(data), **options)
        return RememberResult.model_validate(result)

    @recall_signature
    async def recall(
        self,
        query_text: str,
        query_type: SearchType | str | None = None,
        **options: Unpack[RecallOptions],
    ) -> list[RecallResult]:
        """Ask the server's memory a question (``RecallEngine.recall``).

        The arguments are checked here first, with the same errors as the embedded
        engine, then sent; ``response_model`` cannot travel, and the server refuses
        ``system_prompt_path``.

        Args:
            query_text: the question.
            query_type: the search type; None lets the server's router pick one.
            **options: recall()'s options, declared in ``RecallOptions``.

        Returns:
            The ranked, source-tagged results, best first.

        Raises:
            InvalidInputError: an empty query, an invalid option or a ``response_model``.
            TypeError: an unknown keyword.
            RecallPreconditionError: nothing has been remembered in the tenant.
            DatasetNotFoundError: a dataset in ``datasets`` does not exist.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        if options.get("response_model") is not None:
            raise InvalidInputError("response_model cannot be sent to a remote engine.")
        options.pop("response_model", None)
        RecallParams.check(query_text, query_type, options)
        result = await self._call("recall", query_text, query_type, **options)
        return _RESULTS.validate_python(result)

    async def forget(self, **options: Unpack[ForgetOptions]) -> int:
        """Delete data items or a whole dataset on the server (``RecallEngine.forget``).

        Args:
            **options: exactly one of ``data_id`` and ``dataset_name``, and optionally
                ``tenant_id`` and ``user``.

        Returns:
            The number of chunks removed.

        Raises:
            InvalidInputError: neither or both of ``data_id`` and ``dataset_name``, or
                an unknown id (nothing is deleted).
            DatasetNotFoundError: the dataset is not one of the user's own.
            PermissionDeniedError: a data item the user may not write to.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        return int(cast(int, await self._call("forget", **options)))

    async def create_user(
        self, name: str, *, tenant_id: str | None = None, exist_ok: bool = False
    ) -> User:
        """Add a user to a tenant (``RecallEngine.create_user``).

        Args:
            name: the user's name, unique in the tenant.
            tenant_id: the tenant; None is the server's default tenant.
            exist_ok: return the user of that name when it exists instead of raising.

        Returns:
            The new (or, with ``exist_ok``, the existing) user.

        Raises:
            InvalidInputError: a bad name, or one that is taken (unless ``exist_ok``).
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        result = await self._call("create_user", name, tenant_id=tenant_id, exist_ok=exist_ok)
        return User.model_validate(result)

    async def users(self, *, tenant_id: str | None = None) -> list[User]:
        """Every user of a tenant, oldest first (``RecallEngine.users``).

        Args:
            tenant_id: the tenant; None is the server's default tenant.

        Returns:
            The tenant's users.

        Raises:
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        return _USERS.validate_python(await self._call("users", tenant_id=tenant_id))

    async def grant(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str = "read",
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Share a dataset with another user of the tenant (``RecallEngine.grant``).

        Args:
            dataset_id: the dataset to share.
            to: the user (or its id) who gets the permission.
            permission: ``"read"`` or ``"write"``.
            by: the owner who shares it (a user or its id); None is the default user.
            tenant_id: the tenant; None is the server's default tenant.

        Raises:
            DatasetNotFoundError: an unknown dataset id.
            PermissionDeniedError: ``by`` does not own the dataset.
            UserNotFoundError: an unknown ``to`` or ``by``.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        options = {"to": to, "permission": permission, "by": by, "tenant_id": tenant_id}
        await self._call("grant", dataset_id, **options)

    async def revoke(
        self,
        dataset_id: str,
        *,
        to: User | str,
        permission: str | None = None,
        by: User | str | None = None,
        tenant_id: str | None = None,
    ) -> None:
        """Take back what was granted to a user (``RecallEngine.revoke``).

        Args:
            dataset_id: the shared dataset.
            to: the user (or its id) who loses the permission.
            permission: None takes back everything; ``"write"`` leaves read access.
            by: the owner (a user or its id); None is the default user.
            tenant_id: the tenant; None is the server's default tenant.

        Raises:
            DatasetNotFoundError: an unknown dataset id.
            PermissionDeniedError: ``by`` does not own the dataset.
            UserNotFoundError: an unknown ``to`` or ``by``.
            InvalidInputError: ``permission`` other than None or ``"write"``.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        options = {"to": to, "permission": permission, "by": by, "tenant_id": tenant_id}
        await self._call("revoke", dataset_id, **options)

    async def datasets(
        self, *, user: User | str | None = None, tenant_id: str | None = None
    ) -> list[DatasetAccess]:
        """The datasets a user can read, own ones first (``RecallEngine.datasets``).

        Args:
            user: the user (or its id); None is the default user.
            tenant_id: the tenant; None is the server's default tenant.

        Returns:
            Name, id, owner and permission of each dataset.

        Raises:
            UserNotFoundError: an unknown ``user``.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        result = await self._call("datasets", user=user, tenant_id=tenant_id)
        return _DATASETS.validate_python(result)

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
        """Rate a session answer from 1 to 5 (``RecallEngine.add_feedback``).

        Args:
            session_id: the session the answer was given in.
            qa_id: the answer's id (``metadata["qa_id"]`` of the answer).
            score: 1 (bad) to 5 (good).
            text: an optional comment kept with the rating.
            user: the user (or its id) whose session it is; None is the default user.
            tenant_id: the tenant; None is the server's default tenant.

        Returns:
            The session entry with its feedback.

        Raises:
            InvalidInputError: a score outside 1..5, or no such entry in the session.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        options = {"score": score, "text": text, "user": user, "tenant_id": tenant_id}
        result = await self._call("add_feedback", session_id, qa_id, **options)
        return ResponseQAEntry.model_validate(result)

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
        """``RecallEngine.facts``, through ``GET /api/v1/facts``."""
        if not isinstance(history, bool):
            raise InvalidInputError(f"history must be True or False, got {history!r}.")
        params: dict[str, str | list[str]] = {"subject": subject}
        params["history"] = "true" if history else "false"
        listed = [datasets] if isinstance(datasets, str) else datasets
        optional: dict[str, object] = {"as_of": as_of, "dataset_name": dataset_name}
        optional |= {"datasets": listed, "user": user, "tenant_id": tenant_id}
        wired = {k: to_wire(v) for k, v in optional.items() if v is not None}
        params |= cast("dict[str, str | list[str]]", wired)
        return _FACTS.validate_python(await self._send("GET", "/api/v1/facts", params=params))

    async def list_datasets(self, *, tenant_id: str | None = None) -> dict[str, str]:
        """The datasets of a tenant (``RecallEngine.list_datasets``).

        Args:
            tenant_id: the tenant; None is the server's default tenant.

        Returns:
            Dataset name -> id; empty when nothing was remembered.

        Raises:
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        result = await self._call("list_datasets", tenant_id=tenant_id)
        return dict(cast("dict[str, str]", result))

    async def list_items(
        self, *, dataset_name: str | None = None, tenant_id: str | None = None
    ) -> list[ItemInfo]:
        """The data items of a tenant or one dataset, oldest first (``RecallEngine.list_items``).

        Args:
            dataset_name: list only this dataset; None lists the whole tenant.
            tenant_id: the tenant; None is the server's default tenant.

        Returns:
            One dict per item: ``data_id``, ``name``, ``dataset_name``, ``kind``,
            ``chunk_count``, ``created_at``.

        Raises:
            InvalidInputError: a bad ``dataset_name`` or ``tenant_id``.
            DatasetNotFoundError: ``dataset_name`` does not exist.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        result = await self._call("list_items", dataset_name=dataset_name, tenant_id=tenant_id)
        return list(cast("list[ItemInfo]", result))
