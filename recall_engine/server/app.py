"""The HTTP server: HydraDB's v1 API and the engine's remember/recall, on FastAPI.

``create_app(engine, settings)`` builds the app; ``python -m recall_engine.server``
or ``recall-engine serve`` runs it under uvicorn. Ingestion answers once the data
is durable and searchable (no job ids to poll).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model
from pydantic.alias_generators import to_camel
from pydantic.fields import FieldInfo
from starlette.types import ASGIApp

from recall_engine.core.inputs import MAX_JSON_DEPTH, json_depth
from recall_engine.core.models import Conversation, Document, RecallResult, RememberResult
from recall_engine.core.recall_options import json_option_fields
from recall_engine.server import engine_calls, errors
from recall_engine.server.auth import Authenticator, Principal, make_authenticator
from recall_engine.server.errors import (
    ERROR_RESPONSES,
    ApiError,
    Message,
    Receive,
    Scope,
    Send,
    envelope,
)
from recall_engine.server.port import EnginePort
from recall_engine.server.responses import HealthResponse
from recall_engine.telemetry.asgi import TelemetryMiddleware

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ServerSettings:
    auth: bool = True
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    rate: float = 200.0
    """Requests per second per key (0: no limit)."""
    burst: int = 400
    trusted_proxies: tuple[str, ...] = ()
    """Reverse proxies (addresses or CIDRs) whose X-Forwarded-For names the client
    that failed-login limits count (``server.addresses``); empty: the peer counts."""
    redis_url: str | None = field(default=None, repr=False)  # may hold a password
    """Keep the rate limits in this Redis (shared by replicas); None = per process."""


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, by Content-Length or
    while streaming, before the app reads them; and JSON bodies that nest deeper
    than ``MAX_JSON_DEPTH`` with 400, before a parser recurses into them."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, receive, send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(scope, receive, send)
                return
        if b"json" in headers.get(b"content-type", b"") and json_depth(body) > MAX_JSON_DEPTH:
            response = envelope(
                400,
                "INVALID_PARAMETERS",
                f"The JSON body nests arrays or objects more than {MAX_JSON_DEPTH} levels deep; "
                "send flatter data.",
            )
            await response(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = envelope(
            413,
            "PAYLOAD_TOO_LARGE",
            f"The request body is larger than the limit of {self.limit} bytes.",
        )
        await response(scope, receive, send)


# Options that cannot travel in JSON: a server-side file, a Python class.
LOCAL_ONLY_OPTIONS = frozenset({"system_prompt_path", "response_model"})


def _body_fields() -> dict[str, tuple[object, FieldInfo]]:
    """recall()'s options as JSON fields: the declared types, defaults, bounds and
    descriptions, a time as ISO 8601 text; the engine's own checks run on the call,
    so that a bad value is its ``InvalidInputError`` (400) with its message."""
    return json_option_fields(LOCAL_ONLY_OPTIONS)


class _BodyBase(BaseModel):
    """``POST /api/v1/recall``: the Python ``recall()`` arguments, snake_case or camelCase."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


if TYPE_CHECKING:  # its fields come from the declaration, which mypy does not run
    RecallBody = BaseModel
else:
    RecallBody = create_model(
        "RecallBody",
        __base__=_BodyBase,
        __doc__=_BodyBase.__doc__,
        query_text=(
            str,
            Field(min_length=1, validation_alias=AliasChoices("query_text", "queryText", "query")),
        ),
        query_type=(str | None, Field(default=None, description="A search type; None: routed.")),
        **_body_fields(),
    )


class RememberBody(BaseModel):
    """``POST /api/v1/remember``: texts, documents or conversations into a dataset."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    data: str | dict[str, object] | list[str | dict[str, object]] = Field(
        description="Text (never read as a path), a Document {text, ...}, a Conversation "
        "{messages: [...]}, or a list of these."
    )
    dataset_name: str = "main_dataset"
    metadata: dict[str, object] | None = None
    tenant_id: str | None = None
    user: str | dict[str, object] | None = None


def _item(value: str | dict[str, object]) -> Document | Conversation:
    if isinstance(value, str):
        return Document(text=value)
    if "messages" in value:
        return Conversation.model_validate(value)
    return Document.model_validate(value)


def _store_of(engine: EnginePort, tenant_id: str | None, who: Principal) -> str:
    """The engine store a request's tenant id names, once the key may act on it:
    the same mapping as the tenant API's, so one id never reaches another's store.

    Raises:
        ApiError: 403 when the key may not act on that tenant (a tenant key on a
            request that names no tenant: the server's default one).
    """
    tenant = engine.tenant_name(None) if tenant_id is None else tenant_id
    if tenant_id is None and not who.is_admin and tenant != who.tenant_id:
        raise ApiError(
            403,
            "FORBIDDEN",
            "This request names no tenant, so it would act on the server's default tenant, "
            "which this API key does not belong to; pass tenant_id (your key's tenant).",
        )
    who.check(tenant)
    return engine.tenants.registry.store_name(tenant)


def _accepts(function: Callable[..., object], name: str) -> bool:
    return name in inspect.signature(function).parameters


def authenticator(engine: EnginePort, settings: ServerSettings) -> Authenticator:
    """The authenticator and rate limits of ``settings`` over ``engine``'s key store
    (the HTTP API's and ``recall-engine mcp``'s over HTTP)."""
    return make_authenticator(
        engine.tenants.registry,
        enabled=settings.auth,
        rate=settings.rate,
        burst=settings.burst,
        trusted_proxies=settings.trusted_proxies,
        redis_url=settings.redis_url,
    )


def create_app(engine: EnginePort, settings: ServerSettings | None = None) -> FastAPI:
    """The app over ``engine`` (a ``RecallEngine``)."""
    from recall_engine.server.fact_routes import facts_router
    from recall_engine.server.routes import hydra_router
    from recall_engine.server.v2_errors import V2Errors
    from recall_engine.server.v2_routes import v2_router

    settings = settings or ServerSettings()
    app = FastAPI(
        title="recall-engine",
        version="0.1.0",
        description="HydraDB's v1 and v2 APIs and recall-engine's remember/recall over HTTP.",
    )
    app.state.engine = engine
    app.state.settings = settings
    auth = authenticator(engine, settings)
    app.state.auth = auth
    errors.install(app)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(V2Errors)  # around BodyLimit: its refusals get v2's shape too
    app.add_middleware(TelemetryMiddleware)  # outermost: refused bodies are observed too

    @app.get("/health", tags=["meta"])
    async def health() -> HealthResponse:
        return HealthResponse(status="ok")

    @app.post("/api/v1/recall", tags=["engine"], responses=ERROR_RESPONSES)
    async def recall(body: RecallBody, who: Principal = Depends(auth)) -> list[RecallResult]:
        fields = body.model_dump(exclude={"query_text", "query_type"}, exclude_unset=True)
        fields["tenant_id"] = _store_of(engine, fields.get("tenant_id"), who)
        query = body.model_dump(include={"query_text", "query_type"})
        return await engine.recall(query["query_text"], query["query_type"], **fields)

    @app.post("/api/v1/remember", tags=["engine"], responses=ERROR_RESPONSES)
    async def remember(body: RememberBody, who: Principal = Depends(auth)) -> RememberResult:
        tenant = _store_of(engine, body.tenant_id, who)
        data = [_item(v) for v in body.data] if isinstance(body.data, list) else _item(body.data)
        options: dict[str, Any] = {
            "dataset_name": body.dataset_name,
            "metadata": body.metadata,
            "tenant_id": tenant,
        }
        if body.user is not None:
            if not _accepts(engine.remember, "user"):
                raise ApiError(400, "INVALID_PARAMETERS", "This engine has no users; omit 'user'.")
            options["user"] = body.user
        return await engine.remember(data, **options)

    app.include_router(hydra_router(engine, auth))
    app.include_router(v2_router(engine, auth))
    app.include_router(facts_router(engine, auth, _store_of))
    engine_calls.install(app, engine, auth, _store_of, _item)  # for RecallEngine.connect
    return app
