"""``RemoteRecallEngine``: the embedded engine's async API over its HTTP server.

Same method names, arguments, return models and exception classes as
``RecallEngine``: both are a ``recall_engine.Memory``. ``RecallEngine.connect(url,
api_key=...)`` builds one. The API key travels only in the ``Authorization``
header: it is kept out of ``repr``, logs and error messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import Any, Unpack

import httpx
from pydantic import BaseModel, TypeAdapter

from recall_engine.core import hydra as tm
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.facts import Fact
from recall_engine.core.models import (
    Conversation,
    Document,
    RecallResult,
    RememberResult,
    ResponseQAEntry,
)
from recall_engine.core.recall_options import RecallOptions, RecallParams, recall_signature
from recall_engine.core.search_types import SearchType
from recall_engine.identity.models import DatasetAccess, User
from recall_engine.memory import ForgetOptions, RememberOptions
from recall_engine.remote.errors import RemoteUnavailableError, error_from_reply
from recall_engine.telemetry.client import client_request

DEFAULT_TIMEOUT_S = 60.0
_RESULTS = TypeAdapter(list[RecallResult])
_USERS = TypeAdapter(list[User])
_DATASETS = TypeAdapter(list[DatasetAccess])
_FACTS = TypeAdapter(list[Fact])


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # another async library (trio): one pool for its one loop
        return None


def _wire(value: Any) -> Any:
    """An argument as JSON: models by their fields, a ``User`` by its id."""
    if isinstance(value, User):
        return value.id
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, date):  # a datetime too: as_of travels as ISO 8601
        return value.isoformat()
    if isinstance(value, Path):
        raise InvalidInputError(
            "A path cannot be sent to a remote engine: read the file and pass its text "
            "(or a Document) instead."
        )
    if isinstance(value, list | tuple):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if hasattr(value, "value") and type(value).__module__.startswith("recall_engine"):
        return value.value  # an enum such as SearchType
    return value


def _data(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, Document | Conversation):
        return _wire(value)
    if isinstance(value, list | tuple):
        return [_data(v) for v in value]
    return _wire(value)


class RemoteRecallEngine:
    """A recall engine served by ``recall-engine serve`` at ``url``.

    Every method raises what the embedded engine's method raises (the class the
    server names), and ``RemoteUnavailableError`` when the server cannot be reached
    or did not answer in time; ``RemoteAuthenticationError`` when it refuses the key.

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
        self._new_client = partial(
            httpx.AsyncClient,
            base_url=self.url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            transport=transport,
        )
        self._client: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"RemoteRecallEngine(url={self.url!r})"

    async def __aenter__(self) -> RemoteRecallEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool (the engine opens a new one if used again)."""
        client, self._client = self._client, None
        if client is not None and self._loop is _running_loop():
            await client.aclose()

    def _pool(self) -> httpx.AsyncClient:
        """The connection pool of the running event loop.

        A pooled connection belongs to the loop that opened it, and the embedded
        engine may be driven by one ``asyncio.run`` after another; so a call on a
        new loop gets a new pool (the old loop's connections closed with it).
        """
        loop = _running_loop()
        if self._client is None or loop is not self._loop:
            self._client, self._loop = self._new_client(), loop
        return self._client

    async def _send(self, method: str, path: str, **options: Any) -> Any:
        with client_request(method, self.url, path) as (span, trace_headers):
            if trace_headers:
                options["headers"] = trace_headers
            reply = await self._request(method, path, **options)
            span.set("http.response.status_code", reply.status_code)
            if reply.status_code >= 400:
                span.fail(reply.headers.get("x-recall-error") or str(reply.status_code))
        try:
            body = reply.json()
        except ValueError:
            body = None
        if reply.status_code >= 400:
            raise error_from_reply(reply.status_code, body, reply.headers.get("x-recall-error"))
        return body

    async def _request(self, method: str, path: str, **options: Any) -> httpx.Response:
        """One HTTP exchange; an unreachable or silent server as RemoteUnavailableError."""
        try:
            return await self._pool().request(method, path, **options)
        except httpx.TimeoutException:
            raise RemoteUnavailableError(
                f"The recall-engine server at {self.url} did not answer in time; "
                "check that it is running, or pass a larger timeout_s."
            ) from None
        except httpx.TransportError as exc:
            raise RemoteUnavailableError(
                f"Cannot reach the recall-engine server at {self.url} ({type(exc).__name__}); "
                "start it with `recall-engine serve` or check the URL."
            ) from None

    async def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        payload = {"args": _wire(list(args)), "kwargs": _wire(kwargs)}
        body = await self._send("POST", f"/api/v1/engine/{name}", json=payload)
        return body["result"]

    # the engine API

    async def remember(self, data: Any, **options: Unpack[RememberOptions]) -> RememberResult:
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
        result = await self._call("remember", _data(data), **options)
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
        return int(await self._call("forget", **options))

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
        params: dict[str, Any] = {"subject": subject, "history": "true" if history else "false"}
        listed = [datasets] if isinstance(datasets, str) else datasets
        optional: dict[str, Any] = {"as_of": as_of, "dataset_name": dataset_name}
        optional["datasets"] = listed
        optional |= {"user": user, "tenant_id": tenant_id}
        params |= {k: _wire(v) for k, v in optional.items() if v is not None}
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
        return dict(await self._call("list_datasets", tenant_id=tenant_id))

    async def list_items(
        self, *, dataset_name: str | None = None, tenant_id: str | None = None
    ) -> list[dict[str, Any]]:
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
        return list(await self._call("list_items", dataset_name=dataset_name, tenant_id=tenant_id))

    # the tenant API (HydraDB's paths)

    async def _post(self, path: str, model: type[BaseModel], body: Any) -> Any:
        return model.model_validate(await self._send("POST", path, json=_wire(body)))

    async def create_tenant(
        self, tenant_id: str, metadata_schema: Sequence[Any] | None = None
    ) -> tm.TenantCreateAcceptedResponse:
        """Create a tenant, a store of its own (``POST /tenants/create``).

        Args:
            tenant_id: the new tenant's id (1-100 printable characters).
            metadata_schema: the tenant's metadata fields (``CustomPropertyDefinition``s
                or dicts); those with ``enable_match`` can be used in ``metadata_filters``.

        Returns:
            HydraDB's answer to a created tenant.

        Raises:
            InvalidInputError: a bad tenant id or schema.
            TenantAlreadyExistsError: the tenant exists.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "tenant_metadata_schema": metadata_schema}
        return await self._post("/tenants/create", tm.TenantCreateAcceptedResponse, body)  # type: ignore[no-any-return]

    async def add_memory(
        self,
        tenant_id: str,
        memories: Sequence[Any],
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> tm.AddMemoryResponse:
        """Store memories in a sub-tenant (``POST /memories/add_memory``).

        Args:
            tenant_id: the tenant.
            memories: ``MemoryItem``s or dicts of their fields.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a memory with the same source id instead of failing it.

        Returns:
            One result per memory (stored, or failed with the reason).

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad item or id.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "memories": list(memories), "upsert": upsert}
        if sub_tenant_id is not None:
            body["sub_tenant_id"] = sub_tenant_id
        return await self._post("/memories/add_memory", tm.AddMemoryResponse, body)  # type: ignore[no-any-return]

    async def upload_knowledge(
        self,
        tenant_id: str,
        sources: Sequence[Any] = (),
        *,
        sub_tenant_id: str | None = None,
        upsert: bool = True,
    ) -> tm.SourceUploadResponse:
        """Store documents in a sub-tenant's knowledge (``POST /ingestion/upload_knowledge``).

        Args:
            tenant_id: the tenant.
            sources: ``KnowledgeSource``s or dicts of their fields.
            sub_tenant_id: the sub-tenant; None is the tenant's default one.
            upsert: replace a source with the same id instead of failing it.

        Returns:
            One result per source; a stored source is searchable.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad source or id.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "app_sources": list(sources), "upsert": upsert}
        if sub_tenant_id is not None:
            body["sub_tenant_id"] = sub_tenant_id
        path = "/ingestion/upload_knowledge"
        return await self._post(path, tm.SourceUploadResponse, body)  # type: ignore[no-any-return]

    async def full_recall(self, request: Any = None, **fields: Any) -> tm.RetrievalResult:
        """Search a sub-tenant's knowledge (``POST /recall/full_recall``).

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The chunks, their sources and, when asked, the graph context.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {**_wire(request or {}), **fields}
        return await self._post("/recall/full_recall", tm.RetrievalResult, body)  # type: ignore[no-any-return]

    async def recall_preferences(self, request: Any = None, **fields: Any) -> tm.RetrievalResult:
        """Search a sub-tenant's memories (``POST /recall/recall_preferences``).

        Args:
            request: a ``RecallSearchRequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The memories that match, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidFilterError: metadata_filters with an undeclared key or an operator.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {**_wire(request or {}), **fields}
        path = "/recall/recall_preferences"
        return await self._post(path, tm.RetrievalResult, body)  # type: ignore[no-any-return]

    async def boolean_recall(
        self, tenant_id: str, query: str, **options: Any
    ) -> tm.RetrievalResult:
        """Exact lexical search of a sub-tenant (``POST /recall/boolean_recall``).

        Args:
            tenant_id: the tenant.
            query: the words or phrase to find.
            **options: ``operator``, ``search_mode``, ``sub_tenant_id``, ``max_results``
                (see ``RecallEngine.boolean_recall``).

        Returns:
            The matching chunks, as a ``RetrievalResult``.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: an empty query or a bad option.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {"tenant_id": tenant_id, "query": query, **options}
        return await self._post("/recall/boolean_recall", tm.RetrievalResult, body)  # type: ignore[no-any-return]

    async def qna(self, request: Any = None, **fields: Any) -> tm.QnASearchResponse:
        """A question answered from a sub-tenant's knowledge (``POST /recall/qna``).

        Args:
            request: a ``QnARequest`` or a dict of its fields.
            **fields: the request's fields as keywords, added to ``request``.

        Returns:
            The answer and the chunks it was built from.

        Raises:
            TenantNotFoundError: no such tenant.
            InvalidInputError: a bad request.
            RemoteUnavailableError: the server cannot be reached or did not answer in time.
        """
        body = {**_wire(request or {}), **fields}
        return await self._post("/recall/qna", tm.QnASearchResponse, body)  # type: ignore[no-any-return]
